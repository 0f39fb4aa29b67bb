import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// Chain management under `/v1/rails/localchain/chains`: create, list, show, pause/resume/close,
/// grants, and raw transaction intake. Reads of chain data (the explorer, JSON-RPC) are public,
/// as a blockchain's are; writes need an organiser (of that chain) or an admin.
struct ChainController: Sendable {
    let context: PluginContext
    let service: ChainService
    let intake: TransactionIntake

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("chains", use: create)
        group.get("chains", use: list)
        group.get("chains/{id}", use: show)
        group.post("chains/{id}/pause", use: { try await setStatus(.paused, $0, $1) })
        group.post("chains/{id}/resume", use: { try await setStatus(.active, $0, $1) })
        group.post("chains/{id}/close", use: { try await setStatus(.closed, $0, $1) })
        group.post("chains/{id}/grants", use: grant)
        group.post("chains/{id}/transactions", use: submitTransaction)
    }

    struct CreateChainRequest: Decodable {
        struct Host: Decodable {
            var latitude: String
            var longitude: String
            var radiusMeters: Int64
        }
        var chainId: UInt64
        var name: String
        var currencyName: String
        var symbol: String
        var decimals: UInt8
        var blockIntervalMs: Int64?
        var host: Host?
        var blockGasLimit: UInt64?
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard principal.isAdmin || principal.has(.organiser) else { throw Problem.forbidden("Only organisers and admins create event chains.") }
        var request = request
        let body = try await request.decodeJSON(as: CreateChainRequest.self, context: context)
        // 2^53-1: the largest chain id every wallet (JavaScript numbers) handles.
        guard (1...9_007_199_254_740_991).contains(body.chainId) else {
            throw Problem.invalid("chain_id", "A chain id is 1 to 2^53-1.")
        }
        if let network = PublicChainIDs.all[body.chainId], !service.configuration.allowedPublicChainIDs.contains(body.chainId) {
            throw Problem.invalid(
                "chain_id",
                "Chain id \(body.chainId) is \(network)'s: transactions signed for this chain would be valid there too. Choose an id no public network uses (an operator may allow it for a private network with the rail's `allowed_public_chain_ids`).",
                code: "public_chain_id"
            )
        }
        // Names wallets and the explorer show: the hub's one rule for names people read.
        let name: String
        let currency: String
        do {
            name = try DisplayText.name(body.name, field: "name", maxLength: 100)
            currency = try DisplayText.name(body.currencyName, field: "currency_name", maxLength: 64)
        } catch let refusal as DisplayText.Refusal {
            throw Problem.invalid(refusal.field, refusal.message)
        }
        guard (1...11).contains(body.symbol.count), body.symbol.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw Problem.invalid("symbol", "A symbol is 1 to 11 ASCII letters or digits.")
        }
        guard body.decimals <= 36 else { throw Problem.invalid("decimals", "Decimals are 0 to 36.") }
        let interval = body.blockIntervalMs ?? 2_000
        guard (100...3_600_000).contains(interval) else {
            throw Problem.invalid("block_interval_ms", "A block interval is 100 ms to 1 hour.")
        }
        let gasLimit = body.blockGasLimit ?? service.configuration.blockGasLimit
        guard LocalChainConfiguration.blockGasLimits.contains(gasLimit) else {
            throw Problem.invalid("block_gas_limit", "A block gas limit is 21000 to 1000000000.")
        }
        var host: HostLocation?
        if let h = body.host {
            guard let lat = Double(h.latitude), (-90...90).contains(lat), h.latitude.count <= 32 else {
                throw Problem.invalid("host.latitude", "A latitude is decimal degrees from -90 to 90, as a string.")
            }
            guard let lon = Double(h.longitude), (-180...180).contains(lon), h.longitude.count <= 32 else {
                throw Problem.invalid("host.longitude", "A longitude is decimal degrees from -180 to 180, as a string.")
            }
            guard (1...100_000).contains(h.radiusMeters) else { throw Problem.invalid("host.radius_meters", "A radius is 1 to 100000 m.") }
            host = HostLocation(latitude: h.latitude, longitude: h.longitude, radiusMeters: h.radiusMeters)
        }
        let chain = try await service.create(
            ChainService.NewChain(
                chainID: body.chainId,
                name: name,
                currencyName: currency,
                symbol: body.symbol,
                decimals: body.decimals,
                blockIntervalMs: interval,
                host: host,
                organiserID: principal.userID.description,
                blockGasLimit: gasLimit
            )
        )
        return try context.json(
            ChainRepresentation(chain),
            status: .created,
            headers: [.location: "/v1/rails/localchain/chains/\(chain.chainID)"]
        )
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { UInt64($0) } ?? 0
        let rows = try await self.context.database.read { try LocalChainStore.chains(after: after, limit: limit + 1, on: $0) }
        let next = rows.count > limit ? String(rows[limit - 1].chainID) : nil
        return try context.json(Page(data: rows.prefix(limit).map(ChainRepresentation.init), nextCursor: next))
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        try context.json(ChainRepresentation(try await chain(context)))
    }

    func setStatus(_ status: LocalChain.Status, _ request: Request, _ context: HubRequestContext) async throws -> Response {
        let chain = try await manageableChain(context)
        return try context.json(ChainRepresentation(try await service.setStatus(status, chainID: chain.chainID)))
    }

    struct GrantRequest: Decodable {
        /// The client's id of this grant: a retry with it answers the first grant.
        var id: String?
        var to: String
        var amount: MinorUnits
    }

    struct SubmittedTransaction: Encodable {
        var hash: String
        /// `accepted` (newly pending) or `known` (already pending or sealed).
        var status: String
    }

    @Sendable func grant(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await manageableChain(context)
        var request = request
        let body = try await request.decodeJSON(as: GrantRequest.self, context: context)
        guard let to = try? EthereumAddress(body.to) else { throw Problem.invalid("to", "Expected 0x and 40 hex digits (EIP-55 if mixed case).") }
        guard to != chain.validator else { throw Problem.invalid("to", "The validator issues the currency and holds none.") }
        guard body.amount.value > 0 else { throw Problem.invalid("amount", "A grant is at least 1 minor unit.", code: "amount_must_not_be_zero") }
        if let id = body.id { guard (1...128).contains(id.utf8.count) else { throw Problem.invalid("id", "An id is 1 to 128 bytes.") } }
        let outcome = try await service.grant(chainID: chain.chainID, to: to, amount: body.amount.value, requestID: body.id)
        switch outcome {
        case .accepted(let hash): return try context.json(SubmittedTransaction(hash: hash, status: "accepted"), status: .accepted)
        case .known(let hash): return try context.json(SubmittedTransaction(hash: hash, status: "known"), status: .ok)
        }
    }

    struct RawTransactionRequest: Decodable {
        var raw: String
    }

    /// The REST twin of `eth_sendRawTransaction`; public like it (the signature is the authority).
    @Sendable func submitTransaction(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        var request = request
        let body = try await request.decodeJSON(as: RawTransactionRequest.self, context: context)
        guard let raw = try? Hex.decode(body.raw) else { throw Problem.invalid("raw", "Expected the signed transaction as 0x hex.") }
        let outcome = try await intake.submit(raw, chainID: chain.chainID)
        switch outcome {
        case .accepted(let hash): return try context.json(SubmittedTransaction(hash: hash, status: "accepted"), status: .accepted)
        case .known(let hash): return try context.json(SubmittedTransaction(hash: hash, status: "known"), status: .ok)
        }
    }

    // MARK: Helpers

    func chain(_ context: HubRequestContext) async throws -> LocalChain {
        guard let text = context.parameters.get("id"), let id = UInt64(text),
            let chain = try await self.context.database.read({ try LocalChainStore.chain(id, on: $0) })
        else { throw Problem.notFound("chain") }
        return chain
    }

    /// The chain, if the caller may manage it (its organiser or an admin); others get 404 for
    /// chains they cannot manage only when they could not see them, which for public chains is
    /// never, so they get 403.
    func manageableChain(_ context: HubRequestContext) async throws -> LocalChain {
        let principal = try context.requireScope(.ledgerWrite)
        let chain = try await chain(context)
        guard principal.isAdmin || chain.organiserID == principal.userID.description else {
            throw Problem.forbidden("Only the chain's organiser or an admin manages it.")
        }
        // A relayed copy is managed on the hub that validates the chain.
        if let upstream = chain.upstream {
            throw ChainServiceError.chainRelayed(chain.chainID, upstream: upstream)
        }
        return chain
    }
}
