package import ChainKit
import Foundation
package import HubKernel

/// The rail's SQL. Synchronous; always called inside a `database.read`/`write` (or a ledger
/// transaction) on the worker's thread. Hashes and addresses are stored as lowercase `0x` hex.
///
/// Unsigned numbers (chain ids, block numbers, nonces) are bound as `Int64(clamping:)`, not by
/// the bit pattern a bare `UInt64` binds as: a nonce past `Int64.max` (a client may send one)
/// then still sorts last and reads back, where a negative bit pattern would do neither.
/// (`package`: the test harness of this package reads through it; not API for other packages.)
package enum LocalChainStore {
    static let tables = ["localchain_chains", "localchain_accounts", "localchain_pool", "localchain_blocks", "localchain_transactions"]

    // MARK: Chains

    static let chainColumns: SQL =
        "chain_id, name, currency_name, symbol, decimals, asset, block_interval_ms, host_latitude, host_longitude, radius_meters, "
        + "status, organiser_id, validator, sealed_key, genesis_hash, head_number, head_hash, head_time_ms, created_at, upstream, block_gas_limit, state_root"
    static let selectChains: SQL = "SELECT \(chainColumns) FROM localchain_chains"

    static func insert(_ chain: LocalChain, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO localchain_chains (\(chainColumns)) VALUES (\(Int64(clamping: chain.chainID)), \(chain.name), \(chain.currencyName), \
            \(chain.symbol), \(Int64(chain.decimals)), \(chain.asset), \(chain.blockIntervalMs), \(chain.host?.latitude), \(chain.host?.longitude), \
            \(chain.host?.radiusMeters), \(chain.status.rawValue), \(chain.organiserID), \(chain.validator.description), \(chain.sealedKey), \
            \(chain.genesisHash), \(Int64(clamping: chain.headNumber)), \(chain.headHash), \(chain.headTimeMs), \(chain.createdAt), \(chain.upstream), \
            \(Int64(clamping: chain.blockGasLimit)), \(chain.stateRoot.rawValue))
            """
        )
    }

    package static func chain(_ id: UInt64, forUpdate: Bool = false, on connection: any SQLConnection) throws -> LocalChain? {
        let lock: SQL = forUpdate ? .forUpdate(connection.dialect) : ""
        return try connection.queryFirst(selectChains + " WHERE chain_id = \(Int64(clamping: id))" + lock).map(chain)
    }

    static func chains(after: UInt64, limit: Int, on connection: any SQLConnection) throws -> [LocalChain] {
        try connection.query(selectChains + " WHERE chain_id > \(Int64(clamping: after)) ORDER BY chain_id LIMIT \(limit)").map(chain)
    }

    static func chain(_ row: SQLRow) throws -> LocalChain {
        guard let asset = AssetCode(try row.text("asset")), let status = LocalChain.Status(rawValue: try row.text("status")) else {
            throw DatabaseError(.decode, "a localchain_chains row has a bad asset or status")
        }
        guard let stateRoot = StateRootKind(rawValue: try row.text("state_root")) else {
            throw DatabaseError(.decode, "a localchain_chains row has an unknown state root kind")
        }
        var host: HostLocation?
        if let latitude = try row.optionalText("host_latitude"), let longitude = try row.optionalText("host_longitude"),
            let radius = try row.optionalInt("radius_meters")
        {
            host = HostLocation(latitude: latitude, longitude: longitude, radiusMeters: radius)
        }
        return LocalChain(
            chainID: UInt64(try row.int("chain_id")),
            name: try row.text("name"),
            currencyName: try row.text("currency_name"),
            symbol: try row.text("symbol"),
            decimals: UInt8(clamping: try row.int("decimals")),
            asset: asset,
            blockIntervalMs: try row.int("block_interval_ms"),
            host: host,
            status: status,
            organiserID: try row.text("organiser_id"),
            validator: try EthereumAddress(try row.text("validator")),
            sealedKey: try row.bytes("sealed_key"),
            genesisHash: try row.text("genesis_hash"),
            headNumber: UInt64(try row.int("head_number")),
            headHash: try row.text("head_hash"),
            headTimeMs: try row.int("head_time_ms"),
            createdAt: try row.int("created_at"),
            upstream: try row.optionalText("upstream"),
            blockGasLimit: UInt64(try row.int("block_gas_limit")),
            stateRoot: stateRoot
        )
    }

    static func setStatus(_ status: LocalChain.Status, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute("UPDATE localchain_chains SET status = \(status.rawValue) WHERE chain_id = \(Int64(clamping: chainID))")
    }

    static func setHead(chainID: UInt64, number: UInt64, hash: String, timeMs: Int64, on connection: any SQLConnection) throws {
        try connection.executeDeferred(
            """
            UPDATE localchain_chains SET head_number = \(Int64(clamping: number)), head_hash = \(hash), head_time_ms = \(timeMs) \
            WHERE chain_id = \(Int64(clamping: chainID))
            """
        )
    }

    /// Chains with transactions pending whose next block is due at `nowMs`.
    ///
    /// Whether a chain has any pending is its first pool entry in hash order: only the
    /// `(chain_id, hash)` index yields that order, so the check reads a few index pages whatever
    /// the pool's statistics say. An `EXISTS` let PostgreSQL plan a scan of the whole pool (or of
    /// the chain's entries from the oldest, which sealing has just deleted) on every sealer tick:
    /// about 470 pages and 4 ms a tick under batched sends, against 11–24 pages now.
    static func dueChains(nowMs: Int64, on connection: any SQLConnection) throws -> [UInt64] {
        try connection.query(
            "SELECT c.chain_id FROM localchain_chains c WHERE c.upstream IS NULL AND c.status <> 'paused' AND c.head_time_ms + c.block_interval_ms <= \(nowMs) "
                + "AND (SELECT p.hash FROM localchain_pool p WHERE p.chain_id = c.chain_id ORDER BY p.hash LIMIT 1) IS NOT NULL "
                + "ORDER BY c.chain_id"
        ).map { UInt64(try $0.int("chain_id")) }
    }

    // MARK: Accounts

    static let selectAccounts: SQL = "SELECT address, nonce, balance, ledger_account_id, storage_root, code_hash FROM localchain_accounts"

    package static func account(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> ChainAccount? {
        try connection.queryFirst(selectAccounts + " WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description)").map(account)
    }

    /// The stored accounts among `addresses` (those that exist), in a few statements.
    static func accounts(chainID: UInt64, among addresses: [EthereumAddress], on connection: any SQLConnection) throws -> [ChainAccount] {
        try connection.selectIn(selectAccounts + " WHERE chain_id = \(Int64(clamping: chainID)) AND address", keys: addresses.map(\.description))
            .map(account)
    }

    static func accounts(chainID: UInt64, on connection: any SQLConnection) throws -> [ChainAccount] {
        try connection.query(selectAccounts + " WHERE chain_id = \(Int64(clamping: chainID)) ORDER BY address").map(account)
    }

    static func accounts(chainID: UInt64, after: String, limit: Int, on connection: any SQLConnection) throws -> [ChainAccount] {
        try connection.query(
            selectAccounts + " WHERE chain_id = \(Int64(clamping: chainID))" + .page(after: after, by: addressColumn, limit: limit)
        ).map(account)
    }

    private static let addressColumn = SQLIdentifier("address")!

    static func account(_ row: SQLRow) throws -> ChainAccount {
        guard let id = UInt128(bigEndianBytes: try row.bytes("ledger_account_id")) else {
            throw DatabaseError(.decode, "a ledger account id is 16 bytes")
        }
        return ChainAccount(
            address: try EthereumAddress(try row.text("address")),
            nonce: UInt64(try row.int("nonce")),
            balance: try row.uint128("balance"),
            ledgerAccountID: AccountID(rawValue: id),
            storageRoot: try row.optionalBytes("storage_root"),
            codeHash: try row.optionalBytes("code_hash")
        )
    }

    /// Writes accounts a block touched, many to a statement (their count is not read: deferred on
    /// PostgreSQL, so a block's writes cost no round trip each).
    static func upsert(_ accounts: [ChainAccount], chainID: UInt64, on connection: any SQLConnection) throws {
        let chain = Int64(clamping: chainID)
        try connection.insertMany(
            into: "localchain_accounts",
            columns: ["chain_id", "address", "nonce", "balance", "ledger_account_id", "storage_root", "code_hash"],
            rows: accounts.map { account in
                [
                    .int(chain), .text(account.address.description), .int(Int64(clamping: account.nonce)), .uint128(account.balance),
                    account.ledgerAccountID.sqlValue, .optional(account.storageRoot.map(SQLValue.bytes)),
                    .optional(account.codeHash.map(SQLValue.bytes)),
                ]
            },
            suffix: """
                ON CONFLICT (chain_id, address) DO UPDATE SET nonce = excluded.nonce, balance = excluded.balance, \
                storage_root = excluded.storage_root, code_hash = excluded.code_hash
                """
        )
    }

    // MARK: Pool

    static let selectPool: SQL = "SELECT seq, hash, sender, recipient, nonce, value, raw FROM localchain_pool"

    static func pool(chainID: UInt64, limit: Int, on connection: any SQLConnection) throws -> [PoolEntry] {
        try connection.query(selectPool + " WHERE chain_id = \(Int64(clamping: chainID)) ORDER BY seq LIMIT \(limit)").map(poolEntry)
    }

    static func pool(chainID: UInt64, sender: EthereumAddress, on connection: any SQLConnection) throws -> [PoolEntry] {
        try connection.query(
            selectPool + " WHERE chain_id = \(Int64(clamping: chainID)) AND sender = \(sender.description) ORDER BY nonce"
        ).map(poolEntry)
    }

    static func poolEntry(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> PoolEntry? {
        try connection.queryFirst(selectPool + " WHERE chain_id = \(Int64(clamping: chainID)) AND hash = \(hash)").map(poolEntry)
    }

    package static func poolCount(chainID: UInt64, on connection: any SQLConnection) throws -> Int {
        Int(
            try connection.queryFirst("SELECT count(*) AS entries FROM localchain_pool WHERE chain_id = \(Int64(clamping: chainID))")?
                .int("entries") ?? 0
        )
    }

    /// The pool's size, or a bound of it when that is small enough to decide nothing: at most
    /// `last seq - first seq + 1` entries can lie between the chain's oldest and newest (two index
    /// lookups). Only when that bound reaches `limit` are the entries counted.
    static func poolSize(chainID: UInt64, exactFrom limit: Int, on connection: any SQLConnection) throws -> Int {
        let chain = Int64(clamping: chainID)
        // One aggregate per subquery: each is then a single lookup at one end of the index, on both engines.
        let ends = try connection.queryFirst(
            """
            SELECT (SELECT min(seq) FROM localchain_pool WHERE chain_id = \(chain)) AS first, \
            (SELECT max(seq) FROM localchain_pool WHERE chain_id = \(chain)) AS last
            """
        )
        guard let ends, let first = try ends.optionalInt("first"), let last = try ends.optionalInt("last") else { return 0 }
        let bound = last - first + 1
        return bound < limit ? Int(bound) : try poolCount(chainID: chainID, on: connection)
    }

    static func poolEntry(_ row: SQLRow) throws -> PoolEntry {
        PoolEntry(
            seq: try row.int("seq"),
            hash: try row.text("hash"),
            sender: try EthereumAddress(try row.text("sender")),
            recipient: try EthereumAddress(try row.text("recipient")),
            nonce: UInt64(try row.int("nonce")),
            value: try row.uint128("value"),
            raw: try row.bytes("raw")
        )
    }

    /// Those of `hashes` that are sealed on the chain. (Pending ones come with their senders'
    /// state, ``admissionState(chainID:senders:on:)``.)
    static func sealedHashes(chainID: UInt64, among hashes: [String], on connection: any SQLConnection) throws -> Set<String> {
        let chain = Int64(clamping: chainID)
        var sealed = Set<String>()
        for row in try connection.selectIn("SELECT hash FROM localchain_transactions WHERE chain_id = \(chain) AND hash", keys: hashes) {
            sealed.insert(try row.text("hash"))
        }
        return sealed
    }

    /// What each of `senders` has (sealed nonce and balance) and has pending (nonces and value),
    /// for ``PoolAdmission``; a sender with neither an account nor a pending transaction is absent.
    /// With them, the hashes of the senders' pending transactions: a transaction's hash fixes its
    /// signature and so its sender, so any of a batch's transactions already pending is among
    /// them, and the batch's hashes need no lookup in the pool of their own.
    static func admissionState(
        chainID: UInt64,
        senders: [EthereumAddress],
        on connection: any SQLConnection
    ) throws -> (senders: [EthereumAddress: PoolAdmission.Sender], pendingHashes: Set<String>) {
        let chain = Int64(clamping: chainID)
        let addresses = senders.map(\.description)
        var state: [String: PoolAdmission.Sender] = [:]
        var pendingHashes = Set<String>()
        for row in try connection.selectIn(
            "SELECT address, nonce, balance FROM localchain_accounts WHERE chain_id = \(chain) AND address",
            keys: addresses
        ) {
            let address = try row.text("address")
            state[address, default: .init()].nonce = UInt64(try row.int("nonce"))
            state[address, default: .init()].balance = try row.uint128("balance")
        }
        // Only the columns the rules need: the pending rows' raw bytes stay in the database.
        for row in try connection.selectIn(
            "SELECT sender, nonce, value, hash FROM localchain_pool WHERE chain_id = \(chain) AND sender",
            keys: addresses
        ) {
            let sender = try row.text("sender")
            pendingHashes.insert(try row.text("hash"))
            state[sender, default: .init()].pendingNonces.insert(UInt64(try row.int("nonce")))
            let (sum, overflow) = state[sender, default: .init()].pendingValue.addingReportingOverflow(try row.uint128("value"))
            state[sender, default: .init()].pendingValue = overflow ? .max : sum
        }
        var bySender: [EthereumAddress: PoolAdmission.Sender] = [:]
        for sender in senders { bySender[sender] = state[sender.description] }
        return (bySender, pendingHashes)
    }

    /// Inserts accepted transactions, many to a statement where that saves round trips.
    static func insert(_ entries: [PoolEntry], chainID: UInt64, receivedAt: Int64, on connection: any SQLConnection) throws {
        let chain = Int64(clamping: chainID)
        try connection.insertMany(
            into: "localchain_pool",
            columns: ["chain_id", "hash", "sender", "recipient", "nonce", "value", "raw", "received_at"],
            rows: entries.map { entry in
                [
                    .int(chain), .text(entry.hash), .text(entry.sender.description), .text(entry.recipient.description),
                    .int(Int64(clamping: entry.nonce)), .uint128(entry.value), .bytes(entry.raw), .int(receivedAt),
                ]
            }
        )
    }

    static func removeFromPool(_ hashes: [String], chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.executeIn("DELETE FROM localchain_pool WHERE chain_id = \(Int64(clamping: chainID)) AND hash", keys: hashes)
    }

    // MARK: Blocks and transactions

    static let selectBlocks: SQL = "SELECT number, hash, parent_hash, timestamp, transaction_count, data FROM localchain_blocks"

    static func insert(_ block: StoredBlock, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.executeDeferred(
            """
            INSERT INTO localchain_blocks (chain_id, number, hash, parent_hash, timestamp, transaction_count, data) \
            VALUES (\(Int64(clamping: chainID)), \(Int64(clamping: block.number)), \(block.hash), \(block.parentHash), \
            \(Int64(clamping: block.timestamp)), \(block.transactionCount), \(block.data))
            """
        )
    }

    static func block(chainID: UInt64, number: UInt64, on connection: any SQLConnection) throws -> StoredBlock? {
        try connection.queryFirst(selectBlocks + " WHERE chain_id = \(Int64(clamping: chainID)) AND number = \(Int64(clamping: number))").map(block)
    }

    static func block(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> StoredBlock? {
        try connection.queryFirst(selectBlocks + " WHERE chain_id = \(Int64(clamping: chainID)) AND hash = \(hash)").map(block)
    }

    /// Blocks numbered below `before`, newest first.
    static func blocks(chainID: UInt64, before: UInt64, limit: Int, on connection: any SQLConnection) throws -> [StoredBlock] {
        try connection.query(
            selectBlocks + " WHERE chain_id = \(Int64(clamping: chainID)) AND number < \(Int64(clamping: before)) ORDER BY number DESC LIMIT \(limit)"
        ).map(block)
    }

    static func block(_ row: SQLRow) throws -> StoredBlock {
        StoredBlock(
            number: UInt64(try row.int("number")),
            hash: try row.text("hash"),
            parentHash: try row.text("parent_hash"),
            timestamp: UInt64(try row.int("timestamp")),
            transactionCount: try row.decode("transaction_count"),
            data: try row.bytes("data")
        )
    }

    static let transactionColumns: SQL = "hash, block_number, position, sender, recipient, nonce, value, status, raw"
    static let selectTransactions: SQL = "SELECT \(transactionColumns) FROM localchain_transactions"

    static func insert(_ transactions: [ChainTransaction], chainID: UInt64, on connection: any SQLConnection) throws {
        let chain = Int64(clamping: chainID)
        try connection.insertMany(
            into: "localchain_transactions",
            columns: ["chain_id", "hash", "block_number", "position", "sender", "recipient", "nonce", "value", "status", "raw"],
            rows: transactions.map { t in
                [
                    .int(chain), .text(t.hash), .int(Int64(clamping: t.blockNumber)), .int(Int64(t.position)), .text(t.sender.description),
                    .text(t.recipient.description), .int(Int64(clamping: t.nonce)), .uint128(t.value), .int(Int64(t.status)), .bytes(t.raw),
                ]
            }
        )
    }

    static func transaction(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> ChainTransaction? {
        try connection.queryFirst(selectTransactions + " WHERE chain_id = \(Int64(clamping: chainID)) AND hash = \(hash)").map(transaction)
    }

    static func transactions(chainID: UInt64, block: UInt64, on connection: any SQLConnection) throws -> [ChainTransaction] {
        try connection.query(
            selectTransactions + " WHERE chain_id = \(Int64(clamping: chainID)) AND block_number = \(Int64(clamping: block)) ORDER BY position"
        ).map(transaction)
    }

    /// Transactions sent or received by `address`, newest first, strictly before the cursor
    /// `(block, position)`.
    static func transactions(
        chainID: UInt64,
        address: EthereumAddress?,
        before: (UInt64, Int),
        limit: Int,
        on connection: any SQLConnection
    ) throws -> [ChainTransaction] {
        let block = Int64(clamping: before.0)
        var sql =
            selectTransactions
            + " WHERE chain_id = \(Int64(clamping: chainID)) AND (block_number < \(block) OR (block_number = \(block) AND position < \(before.1)))"
        if let address { sql += " AND (sender = \(address.description) OR recipient = \(address.description))" }
        sql += " ORDER BY block_number DESC, position DESC LIMIT \(limit)"
        return try connection.query(sql).map(transaction)
    }

    static func transaction(_ row: SQLRow) throws -> ChainTransaction {
        ChainTransaction(
            hash: try row.text("hash"),
            blockNumber: UInt64(try row.int("block_number")),
            position: try row.decode("position"),
            sender: try EthereumAddress(try row.text("sender")),
            recipient: try EthereumAddress(try row.text("recipient")),
            nonce: UInt64(try row.int("nonce")),
            value: try row.uint128("value"),
            status: UInt8(clamping: try row.int("status")),
            raw: try row.bytes("raw")
        )
    }
}
