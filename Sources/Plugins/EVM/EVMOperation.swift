import Foundation
import HubKernel

/// A transaction the rail sent for someone: what it does (`kind`, `subject`), its hash and state
/// (`pending → confirmed | failed`), and what it produced (`result`, e.g. a minted token's id).
struct EVMOperation: Sendable, Hashable, Encodable {
    enum State: String, Sendable, Codable { case pending, confirmed, failed }

    var id: String
    var chain: String
    var userId: String?
    var kind: String
    var subject: String
    var state: State
    var from: String
    var nonce: UInt64
    var txHash: String
    var result: [String: String]?
    var error: String?
    var blockNumber: UInt64?
    var createdAt: String
    var updatedAt: String

    static let columns: SQL =
        "id, chain, user_id, kind, subject, state, from_address, nonce, tx_hash, result, error, block_number, created_at, updated_at"

    init(_ row: SQLRow) throws {
        id = try row.text("id")
        chain = try row.text("chain")
        userId = try row.optionalText("user_id")
        kind = try row.text("kind")
        subject = try row.text("subject")
        guard let state = State(rawValue: try row.text("state")) else { throw EVMError.invalid("state", "unknown operation state") }
        self.state = state
        from = try row.text("from_address")
        nonce = UInt64(try row.int("nonce"))
        txHash = try row.text("tx_hash")
        result = try row.optionalText("result").flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        error = try row.optionalText("error")
        blockNumber = try row.optionalInt("block_number").map(UInt64.init)
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
        updatedAt = try row.decode("updated_at", as: LedgerTimestamp.self).description
    }

    static func find(_ id: String, on connection: any SQLConnection) throws -> EVMOperation? {
        try connection.queryFirst("SELECT \(columns) FROM evm_operations WHERE id = \(id)").map(EVMOperation.init)
    }
}
