import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// `POST /v1/rails/evm/transactions`: a user's own wallet's signature of a transaction the hub
/// prepared for them (any write of the rail answers 200 with one when the caller signs with their
/// own wallet). 202 with the operation, tracked like any other.
struct TransactionsController: Sendable {
    let sender: TransactionSender
    let chains: EVMChains

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("transactions", use: submit)
    }

    struct SubmitRequest: Decodable {
        var preparedId: String
        /// The signed transaction's bytes, hex with `0x`.
        var raw: String
    }

    @Sendable func submit(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: SubmitRequest.self, context: context)
        guard body.raw.utf8.count <= 2 * 131_072 + 2, let raw = try? Hex.decode(body.raw), !raw.isEmpty else {
            throw EVMError.invalid("raw", "raw is the signed transaction as 0x-prefixed hex (at most 128 KiB).")
        }
        let operation = try await sender.submit(prepared: body.preparedId, raw: raw, by: principal.userID, chains: chains)
        return try context.answer(.sent(operation))
    }
}
