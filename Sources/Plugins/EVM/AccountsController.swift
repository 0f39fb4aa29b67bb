import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/evm/chains` and `/v1/rails/evm/accounts…`: the rail's chains and the caller's
/// custodial accounts on them.
struct AccountsController: Sendable {
    let chains: EVMChains
    let accounts: CustodialAccounts
    let contracts: MarketplaceContracts

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.get("chains", use: listChains)
        group.get("accounts", use: listAccounts)
        group.post("accounts", use: openAccount)
        group.post("accounts/{chain}/keystore", use: exportKeystore)
    }

    struct ChainRepresentation: Encodable {
        var id: String
        var chainId: UInt64
        /// `hub` (a chain of this hub) or `http` (an external node; its URL is not shown).
        var endpoint: String
        var confirmations: Int
        var nativeAsset: String
        var symbol: String
        var decimals: UInt8
        var isDefault: Bool
        /// The account that deploys the rail's contracts and receives the platform's fees: on an
        /// external chain the operator funds it for gas.
        var platformAddress: String
        var status: String
        var detail: String?
    }

    @Sendable func listChains(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        var list: [ChainRepresentation] = []
        for chain in chains.all {
            let status = chains.status(chain.id)
            let platform = try await contracts.platformKey(chain).address
            list.append(
                ChainRepresentation(
                    id: chain.id,
                    chainId: chain.chainID,
                    endpoint: chain.endpoint == .hosted ? "hub" : "http",
                    confirmations: chain.confirmations,
                    nativeAsset: chain.nativeAsset,
                    symbol: chain.symbol,
                    decimals: chain.decimals,
                    isDefault: chain.id == chains.configuration.defaultChain,
                    platformAddress: platform.checksummed,
                    status: status.name,
                    detail: status.detail
                )
            )
        }
        return try context.json(["data": list])
    }

    @Sendable func listAccounts(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        return try context.json(["data": try await accounts.accounts(of: principal.userID)])
    }

    struct OpenRequest: Decodable {
        var chain: String?
    }

    /// Opens the caller's custodial account on a chain (the default one unless named): 201 with
    /// the new account, or 200 with the one they already have.
    @Sendable func openAccount(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: OpenRequest.self, context: context)
        let chain = try chains.settings(body.chain)
        if let existing = try await accounts.find(user: principal.userID, chain: chain.id) { return try context.json(existing) }
        return try context.json(try await accounts.account(for: principal.userID, on: chain.id), status: .created)
    }

    struct ExportRequest: Decodable {
        var password: String
    }

    /// The caller's key on `{chain}` as a keystore v3 file under their password. Only with a
    /// signed-in session: an API key, which may sit in a script or a server, cannot take keys out.
    /// `Cache-Control: no-store` keeps the key out of caches and out of the `Idempotency-Key`
    /// record (a retry exports again, which changes nothing).
    @Sendable func exportKeystore(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard case .accessToken = principal.credential else {
            throw EVMError(
                kind: .forbidden,
                errorCode: "session_required",
                message: "Exporting a key needs a signed-in session, not an API key."
            )
        }
        let chain = try chains.settings(context.parameters.get("chain"))
        var request = request
        let body = try await request.decodeJSON(as: ExportRequest.self, context: context)
        let keystore = try await accounts.exportKeystore(user: principal.userID, chain: chain.id, password: body.password)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", .contentDisposition: "attachment; filename=\"keystore.json\"", .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(string: keystore))
        )
    }
}
