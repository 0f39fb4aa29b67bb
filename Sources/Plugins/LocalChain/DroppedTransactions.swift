import ChainKit
import HubKernel

/// A transaction the sealer took out of the pool without executing it, and why.
///
/// The chain and its ledger mirror must agree; when the ledger refuses the transfer that mirrors
/// a transaction (a mirror account that no longer holds what the chain says, a cash-out hold that
/// can no longer be resolved), sealing that transaction would break the invariant, and retrying
/// it would stop the whole chain behind it. So it is dropped with its reason, visible through the
/// explorer and the event feed, and the block is sealed without it. Its nonce stays free: the
/// sender may send another transaction with it.
struct DroppedTransaction: Sendable, Equatable {
    var entry: PoolEntry
    var reason: String
}

/// Why sealing a block stopped: the ledger refused to mirror these transactions. Thrown inside the
/// block's database transaction (so nothing of the block is written), handled by the sealer.
struct MirrorRefusal: Error {
    var hashes: [String]
    var reason: String
}

extension LocalChainStore {
    static func insert(_ dropped: DroppedTransaction, chainID: UInt64, atMs: Int64, on connection: any SQLConnection) throws {
        let e = dropped.entry
        try connection.execute(
            """
            INSERT INTO localchain_dropped (chain_id, hash, sender, recipient, nonce, value, reason, dropped_at_ms) \
            VALUES (\(Int64(clamping: chainID)), \(e.hash), \(e.sender.description), \(e.recipient.description), \(Int64(clamping: e.nonce)), \
            \(e.value), \(dropped.reason), \(atMs)) ON CONFLICT (chain_id, hash) DO NOTHING
            """
        )
    }

    static func dropped(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> DroppedTransaction? {
        try connection.queryFirst(
            "SELECT hash, sender, recipient, nonce, value, reason FROM localchain_dropped WHERE chain_id = \(Int64(clamping: chainID)) AND hash = \(hash)"
        ).map { row in
            DroppedTransaction(
                entry: PoolEntry(
                    seq: 0,
                    hash: try row.text("hash"),
                    sender: try EthereumAddress(try row.text("sender")),
                    recipient: try EthereumAddress(try row.text("recipient")),
                    nonce: UInt64(try row.int("nonce")),
                    value: try row.uint128("value"),
                    raw: []
                ),
                reason: try row.text("reason")
            )
        }
    }
}

extension LocalChainMigrations {
    /// Transactions the sealer dropped instead of executing (``DroppedTransaction``).
    static let dropped = Migration(
        "009_dropped_transactions",
        portable: """
            CREATE TABLE localchain_dropped (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                hash TEXT NOT NULL,
                sender TEXT NOT NULL,
                recipient TEXT NOT NULL,
                nonce {bigint} NOT NULL,
                value {u128} NOT NULL,
                reason TEXT NOT NULL,
                dropped_at_ms {bigint} NOT NULL,
                PRIMARY KEY (chain_id, hash)
            );
            """
    )
}
