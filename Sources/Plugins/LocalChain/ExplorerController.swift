import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// The REST explorer under `/v1/rails/localchain/chains/{id}/…`: blocks, transactions, accounts
/// with their history, search, and the proximity check. Public, as a chain's data is; lists are
/// cursor pages, newest first for blocks and transactions, by address for accounts.
struct ExplorerController: Sendable {
    let context: PluginContext

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.get("chains/{id}/blocks", use: blocks)
        group.get("chains/{id}/blocks/{block}", use: block)
        group.get("chains/{id}/transactions", use: transactions)
        group.get("chains/{id}/transactions/{hash}", use: transaction)
        group.get("chains/{id}/accounts", use: accounts)
        group.get("chains/{id}/accounts/{address}", use: account)
        group.get("chains/{id}/accounts/{address}/transactions", use: accountTransactions)
        group.get("chains/{id}/search", use: search)
        group.get("chains/{id}/proximity", use: proximity)
    }

    // MARK: Blocks

    @Sendable func blocks(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        let limit = try request.pageLimit()
        let before = try request.query("cursor") { UInt64($0) } ?? (chain.headNumber + 1)
        let rows = try await self.context.database.read {
            try LocalChainStore.blocks(chainID: chain.chainID, before: before, limit: limit + 1, on: $0)
        }
        let page = try rows.prefix(limit).map { BlockRepresentation($0, try $0.decoded()) }
        let next = rows.count > limit ? String(rows[limit - 1].number) : nil
        return try context.json(Page(data: page, nextCursor: next))
    }

    /// `latest`, a number, or a `0x` block hash.
    @Sendable func block(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        let reference = context.parameters.get("block") ?? ""
        let chainID = chain.chainID
        let stored: StoredBlock?
        if reference == "latest" {
            stored = try await self.context.database.read { try LocalChainStore.block(chainID: chainID, number: chain.headNumber, on: $0) }
        } else if let number = UInt64(reference) {
            stored = try await self.context.database.read { try LocalChainStore.block(chainID: chainID, number: number, on: $0) }
        } else if let hash = try? Hex.decode(reference, length: 32), reference.hasPrefix("0x") {
            stored = try await self.context.database.read { try LocalChainStore.block(chainID: chainID, hash: Hex.encode(hash), on: $0) }
        } else {
            stored = nil
        }
        guard let stored else { throw Problem.notFound("block") }
        return try context.json(BlockRepresentation(stored, try stored.decoded()))
    }

    // MARK: Transactions

    @Sendable func transactions(_ request: Request, context: HubRequestContext) async throws -> Response {
        try await transactionPage(request, context, address: nil)
    }

    @Sendable func accountTransactions(_ request: Request, context: HubRequestContext) async throws -> Response {
        try await transactionPage(request, context, address: try address(context))
    }

    /// Cursor `<block>-<position>`: the page continues strictly before it.
    func transactionPage(_ request: Request, _ context: HubRequestContext, address: EthereumAddress?) async throws -> Response {
        let chain = try await chain(context)
        let limit = try request.pageLimit()
        let before =
            try request.query("cursor") { text -> (UInt64, Int)? in
                let parts = text.split(separator: "-")
                guard parts.count == 2, let block = UInt64(parts[0]), let position = Int(parts[1]), position >= 0 else { return nil }
                return (block, position)
            } ?? (UInt64(Int64.max), 0)
        let chainID = chain.chainID
        let rows = try await self.context.database.read {
            try LocalChainStore.transactions(chainID: chainID, address: address, before: before, limit: limit + 1, on: $0)
        }
        let next = rows.count > limit ? "\(rows[limit - 1].blockNumber)-\(rows[limit - 1].position)" : nil
        let page = rows.prefix(limit).map { TransactionRepresentation($0).explained(raw: $0.raw) }
        return try context.json(Page(data: page, nextCursor: next))
    }

    @Sendable func transaction(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        guard let bytes = try? Hex.decode(context.parameters.get("hash") ?? "", length: 32) else { throw Problem.notFound("transaction") }
        let (hash, chainID) = (Hex.encode(bytes), chain.chainID)
        let found = try await self.context.database.read { connection -> TransactionRepresentation? in
            if let sealed = try LocalChainStore.transaction(chainID: chainID, hash: hash, on: connection) {
                let logs = try LogStore.logs(chainID: chainID, blockNumber: sealed.blockNumber, position: sealed.position, on: connection)
                return TransactionRepresentation(sealed).explained(raw: sealed.raw, logs: logs)
            }
            if let pending = try LocalChainStore.poolEntry(chainID: chainID, hash: hash, on: connection) {
                return TransactionRepresentation(pending: pending).explained(raw: pending.raw)
            }
            return try LocalChainStore.dropped(chainID: chainID, hash: hash, on: connection).map {
                TransactionRepresentation(dropped: $0).explained(raw: $0.entry.raw)
            }
        }
        guard let found else { throw Problem.notFound("transaction") }
        return try context.json(found)
    }

    // MARK: Accounts

    /// `?kind=contract` lists only accounts with code (contracts), `?kind=account` only those
    /// without; each row carries its `code_size`.
    @Sendable func accounts(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { (try? EthereumAddress($0))?.description } ?? ""
        let kindText = request.uri.queryParameters["kind"].map(String.init)
        let kind = kindText.flatMap(ExplorerStore.AccountKind.init(rawValue:))
        guard kindText == nil || kind != nil else {
            throw Problem.invalid("kind", "Give kind=contract (accounts with code) or kind=account (accounts without).")
        }
        let chainID = chain.chainID
        let rows = try await self.context.database.read {
            try ExplorerStore.accounts(chainID: chainID, kind: kind, after: after, limit: limit + 1, on: $0)
        }
        let next = rows.count > limit ? rows[limit - 1].account.address.description : nil
        return try context.json(Page(data: rows.prefix(limit).map { AccountRepresentation($0.account, codeSize: $0.codeSize) }, nextCursor: next))
    }

    /// An address the chain has not seen yet is an empty account (nonce 0, balance 0), as on
    /// Ethereum: any address can receive.
    @Sendable func account(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        let address = try address(context)
        let chainID = chain.chainID
        let (stored, codeSize) = try await self.context.database.read { connection in
            (
                try LocalChainStore.account(chainID: chainID, address: address, on: connection),
                try ExplorerStore.codeSize(chainID: chainID, address: address, on: connection)
            )
        }
        return try context.json(
            AccountRepresentation(
                stored
                    ?? ChainAccount(
                        address: address,
                        nonce: 0,
                        balance: 0,
                        ledgerAccountID: LocalChainIDs.ledgerAccount(chainID: chainID, address: address)
                    ),
                codeSize: codeSize
            )
        )
    }

    // MARK: Search and proximity

    struct SearchResult: Encodable, Sendable {
        /// `block`, `transaction` or `account`.
        var kind: String
        var block: BlockRepresentation?
        var transaction: TransactionRepresentation?
        var account: AccountRepresentation?
    }

    /// `?q=` a block number, a block or transaction hash, or an address. 404 when nothing matches.
    @Sendable func search(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        guard let query = request.uri.queryParameters["q"].map(String.init), !query.isEmpty, query.count <= 80 else {
            throw Problem.invalid("q", "Search for a block number, a block or transaction hash, or an address.")
        }
        let chainID = chain.chainID
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        let result = try await self.context.database.read { connection -> SearchResult? in
            if let number = UInt64(trimmed), let stored = try LocalChainStore.block(chainID: chainID, number: number, on: connection) {
                return SearchResult(kind: "block", block: BlockRepresentation(stored, try stored.decoded()))
            }
            if let bytes = try? Hex.decode(trimmed, length: 32) {
                let hash = Hex.encode(bytes)
                if let t = try LocalChainStore.transaction(chainID: chainID, hash: hash, on: connection) {
                    return SearchResult(kind: "transaction", transaction: TransactionRepresentation(t).explained(raw: t.raw))
                }
                if let p = try LocalChainStore.poolEntry(chainID: chainID, hash: hash, on: connection) {
                    return SearchResult(kind: "transaction", transaction: TransactionRepresentation(pending: p).explained(raw: p.raw))
                }
                if let stored = try LocalChainStore.block(chainID: chainID, hash: hash, on: connection) {
                    return SearchResult(kind: "block", block: BlockRepresentation(stored, try stored.decoded()))
                }
            }
            if let address = try? EthereumAddress(trimmed),
                let account = try LocalChainStore.account(chainID: chainID, address: address, on: connection)
            {
                let codeSize = try ExplorerStore.codeSize(chainID: chainID, address: address, on: connection)
                return SearchResult(kind: "account", account: AccountRepresentation(account, codeSize: codeSize))
            }
            return nil
        }
        guard let result else { throw Problem.notFound("block, transaction or account") }
        return try context.json(result)
    }

    struct Proximity: Encodable, Sendable {
        var distanceMeters: Int64
        var radiusMeters: Int64
        var withinRadius: Bool
    }

    /// `?lat=&lon=` in decimal degrees: the great-circle distance to the host (haversine on a
    /// sphere of the Earth's mean radius; metres, rounded) and whether it is within the radius.
    @Sendable func proximity(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chain(context)
        guard let host = chain.host else {
            throw ChainServiceError.noHostLocation
        }
        guard let lat = try request.query("lat", { Double($0).flatMap { (-90...90).contains($0) ? $0 : nil } }) else {
            throw Problem.invalid("lat", "Give lat as decimal degrees from -90 to 90.")
        }
        guard let lon = try request.query("lon", { Double($0).flatMap { (-180...180).contains($0) ? $0 : nil } }) else {
            throw Problem.invalid("lon", "Give lon as decimal degrees from -180 to 180.")
        }
        let distance = Self.distanceMeters(lat, lon, Double(host.latitude) ?? 0, Double(host.longitude) ?? 0)
        let meters = Int64(distance.rounded())
        return try context.json(Proximity(distanceMeters: meters, radiusMeters: host.radiusMeters, withinRadius: meters <= host.radiusMeters))
    }

    static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radius = 6_371_008.8
        let (p1, p2) = (lat1 * .pi / 180, lat2 * .pi / 180)
        let dp = (lat2 - lat1) * .pi / 180
        let dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    // MARK: Helpers

    func chain(_ context: HubRequestContext) async throws -> LocalChain {
        guard let text = context.parameters.get("id"), let id = UInt64(text),
            let chain = try await self.context.database.read({ try LocalChainStore.chain(id, on: $0) })
        else { throw Problem.notFound("chain") }
        return chain
    }

    func address(_ context: HubRequestContext) throws -> EthereumAddress {
        guard let address = try? EthereumAddress(context.parameters.get("address") ?? "") else { throw Problem.notFound("account") }
        return address
    }
}
