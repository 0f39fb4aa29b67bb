package import ChainKit
import Foundation
package import HubKernel

/// The rail's SQL. Synchronous; always called inside a `database.read`/`write` (or a ledger
/// transaction) on the worker's thread. Hashes and addresses are stored as lowercase `0x` hex.
/// (`package`: the test harness of this package reads through it; not API for other packages.)
package enum LocalChainStore {
    static let tables = ["localchain_chains", "localchain_accounts", "localchain_pool", "localchain_blocks", "localchain_transactions"]

    // MARK: Chains

    static let chainColumns =
        "chain_id, name, currency_name, symbol, decimals, asset, block_interval_ms, host_latitude, host_longitude, radius_meters, "
        + "status, organiser_id, validator, sealed_key, genesis_hash, head_number, head_hash, head_time_ms, created_at, upstream"

    static func insert(_ chain: LocalChain, on connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO localchain_chains (\(chainColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
            [
                .int(Int64(clamping: chain.chainID)), .text(chain.name), .text(chain.currencyName), .text(chain.symbol), .int(Int64(chain.decimals)),
                .text(chain.asset.rawValue), .int(chain.blockIntervalMs), .optional(chain.host.map { .text($0.latitude) }),
                .optional(chain.host.map { .text($0.longitude) }), .optional(chain.host.map { .int($0.radiusMeters) }),
                .text(chain.status.rawValue), .text(chain.organiserID), .text(chain.validator.description), .bytes(chain.sealedKey),
                .text(chain.genesisHash), .int(Int64(clamping: chain.headNumber)), .text(chain.headHash), .int(chain.headTimeMs),
                .int(chain.createdAt),
                .optional(chain.upstream.map(SQLValue.text)),
            ]
        )
    }

    package static func chain(_ id: UInt64, forUpdate: Bool = false, on connection: any SQLConnection) throws -> LocalChain? {
        try connection.queryFirst(
            "SELECT \(chainColumns) FROM localchain_chains WHERE chain_id = $1" + (forUpdate ? connection.dialect.forUpdate : ""),
            [.int(Int64(clamping: id))]
        ).map(chain)
    }

    static func chains(after: UInt64, limit: Int, on connection: any SQLConnection) throws -> [LocalChain] {
        try connection.query(
            "SELECT \(chainColumns) FROM localchain_chains WHERE chain_id > $1 ORDER BY chain_id LIMIT $2",
            [.int(Int64(clamping: after)), .int(Int64(limit))]
        ).map(chain)
    }

    static func chain(_ row: SQLRow) throws -> LocalChain {
        guard let asset = AssetCode(try row.text(5)), let status = LocalChain.Status(rawValue: try row.text(10)) else {
            throw DatabaseError(.decode, "a localchain_chains row has a bad asset or status")
        }
        var host: HostLocation?
        if let latitude = try row.optionalText(7), let longitude = try row.optionalText(8), let radius = try row.optionalInt(9) {
            host = HostLocation(latitude: latitude, longitude: longitude, radiusMeters: radius)
        }
        return LocalChain(
            chainID: UInt64(try row.int(0)),
            name: try row.text(1),
            currencyName: try row.text(2),
            symbol: try row.text(3),
            decimals: UInt8(clamping: try row.int(4)),
            asset: asset,
            blockIntervalMs: try row.int(6),
            host: host,
            status: status,
            organiserID: try row.text(11),
            validator: try EthereumAddress(try row.text(12)),
            sealedKey: try row.bytes(13),
            genesisHash: try row.text(14),
            headNumber: UInt64(try row.int(15)),
            headHash: try row.text(16),
            headTimeMs: try row.int(17),
            createdAt: try row.int(18),
            upstream: try row.optionalText(19)
        )
    }

    static func setStatus(_ status: LocalChain.Status, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute(
            "UPDATE localchain_chains SET status = $1 WHERE chain_id = $2",
            [.text(status.rawValue), .int(Int64(clamping: chainID))]
        )
    }

    static func setHead(chainID: UInt64, number: UInt64, hash: String, timeMs: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            "UPDATE localchain_chains SET head_number = $1, head_hash = $2, head_time_ms = $3 WHERE chain_id = $4",
            [.int(Int64(clamping: number)), .text(hash), .int(timeMs), .int(Int64(clamping: chainID))]
        )
    }

    /// Chains with transactions pending whose next block is due at `nowMs`.
    static func dueChains(nowMs: Int64, on connection: any SQLConnection) throws -> [UInt64] {
        try connection.query(
            "SELECT c.chain_id FROM localchain_chains c WHERE c.upstream IS NULL AND c.status <> 'paused' AND c.head_time_ms + c.block_interval_ms <= $1 "
                + "AND EXISTS (SELECT 1 FROM localchain_pool p WHERE p.chain_id = c.chain_id) ORDER BY c.chain_id",
            [.int(nowMs)]
        ).map { UInt64(try $0.int(0)) }
    }

    // MARK: Accounts

    package static func account(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> ChainAccount? {
        try connection.queryFirst(
            "SELECT address, nonce, balance, ledger_account_id FROM localchain_accounts WHERE chain_id = $1 AND address = $2",
            [.int(Int64(clamping: chainID)), .text(address.description)]
        ).map(account)
    }

    static func accounts(chainID: UInt64, on connection: any SQLConnection) throws -> [ChainAccount] {
        try connection.query(
            "SELECT address, nonce, balance, ledger_account_id FROM localchain_accounts WHERE chain_id = $1 ORDER BY address",
            [.int(Int64(clamping: chainID))]
        ).map(account)
    }

    static func accounts(chainID: UInt64, after: String, limit: Int, on connection: any SQLConnection) throws -> [ChainAccount] {
        try connection.query(
            "SELECT address, nonce, balance, ledger_account_id FROM localchain_accounts WHERE chain_id = $1 AND address > $2 ORDER BY address LIMIT $3",
            [.int(Int64(clamping: chainID)), .text(after), .int(Int64(limit))]
        ).map(account)
    }

    static func account(_ row: SQLRow) throws -> ChainAccount {
        guard let id = UInt128(bigEndianBytes: try row.bytes(3)) else { throw DatabaseError(.decode, "a ledger account id is 16 bytes") }
        return ChainAccount(
            address: try EthereumAddress(try row.text(0)),
            nonce: UInt64(try row.int(1)),
            balance: try row.uint128(2),
            ledgerAccountID: AccountID(rawValue: id)
        )
    }

    static func upsert(_ accounts: [ChainAccount], chainID: UInt64, on connection: any SQLConnection) throws {
        for account in accounts {
            try connection.execute(
                "INSERT INTO localchain_accounts (chain_id, address, nonce, balance, ledger_account_id) VALUES ($1, $2, $3, $4, $5) "
                    + "ON CONFLICT (chain_id, address) DO UPDATE SET nonce = excluded.nonce, balance = excluded.balance",
                [
                    .int(Int64(clamping: chainID)), .text(account.address.description), .int(Int64(clamping: account.nonce)),
                    .uint128(account.balance),
                    .bytes(account.ledgerAccountID.rawValue.bigEndianBytes),
                ]
            )
        }
    }

    // MARK: Pool

    static let poolColumns = "seq, hash, sender, recipient, nonce, value, raw"

    static func pool(chainID: UInt64, limit: Int, on connection: any SQLConnection) throws -> [PoolEntry] {
        try connection.query(
            "SELECT \(poolColumns) FROM localchain_pool WHERE chain_id = $1 ORDER BY seq LIMIT $2",
            [.int(Int64(clamping: chainID)), .int(Int64(limit))]
        ).map(poolEntry)
    }

    static func pool(chainID: UInt64, sender: EthereumAddress, on connection: any SQLConnection) throws -> [PoolEntry] {
        try connection.query(
            "SELECT \(poolColumns) FROM localchain_pool WHERE chain_id = $1 AND sender = $2 ORDER BY nonce",
            [.int(Int64(clamping: chainID)), .text(sender.description)]
        ).map(poolEntry)
    }

    static func poolEntry(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> PoolEntry? {
        try connection.queryFirst(
            "SELECT \(poolColumns) FROM localchain_pool WHERE chain_id = $1 AND hash = $2",
            [.int(Int64(clamping: chainID)), .text(hash)]
        ).map(poolEntry)
    }

    package static func poolCount(chainID: UInt64, on connection: any SQLConnection) throws -> Int {
        Int(try connection.queryFirst("SELECT count(*) FROM localchain_pool WHERE chain_id = $1", [.int(Int64(clamping: chainID))])?.int(0) ?? 0)
    }

    static func poolEntry(_ row: SQLRow) throws -> PoolEntry {
        PoolEntry(
            seq: try row.int(0),
            hash: try row.text(1),
            sender: try EthereumAddress(try row.text(2)),
            recipient: try EthereumAddress(try row.text(3)),
            nonce: UInt64(try row.int(4)),
            value: try row.uint128(5),
            raw: try row.bytes(6)
        )
    }

    static func insert(_ entry: PoolEntry, chainID: UInt64, receivedAt: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO localchain_pool (chain_id, hash, sender, recipient, nonce, value, raw, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                .int(Int64(clamping: chainID)), .text(entry.hash), .text(entry.sender.description), .text(entry.recipient.description),
                .int(Int64(clamping: entry.nonce)), .uint128(entry.value), .bytes(entry.raw), .int(receivedAt),
            ]
        )
    }

    static func removeFromPool(_ hashes: [String], chainID: UInt64, on connection: any SQLConnection) throws {
        for hash in hashes {
            try connection.execute("DELETE FROM localchain_pool WHERE chain_id = $1 AND hash = $2", [.int(Int64(clamping: chainID)), .text(hash)])
        }
    }

    // MARK: Blocks and transactions

    static let blockColumns = "number, hash, parent_hash, timestamp, transaction_count, data"

    static func insert(_ block: StoredBlock, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO localchain_blocks (chain_id, number, hash, parent_hash, timestamp, transaction_count, data) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [
                .int(Int64(clamping: chainID)), .int(Int64(clamping: block.number)), .text(block.hash), .text(block.parentHash),
                .int(Int64(clamping: block.timestamp)),
                .int(Int64(block.transactionCount)), .bytes(block.data),
            ]
        )
    }

    static func block(chainID: UInt64, number: UInt64, on connection: any SQLConnection) throws -> StoredBlock? {
        try connection.queryFirst(
            "SELECT \(blockColumns) FROM localchain_blocks WHERE chain_id = $1 AND number = $2",
            [.int(Int64(clamping: chainID)), .int(Int64(clamping: number))]
        ).map(block)
    }

    static func block(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> StoredBlock? {
        try connection.queryFirst(
            "SELECT \(blockColumns) FROM localchain_blocks WHERE chain_id = $1 AND hash = $2",
            [.int(Int64(clamping: chainID)), .text(hash)]
        ).map(block)
    }

    /// Blocks numbered below `before`, newest first.
    static func blocks(chainID: UInt64, before: UInt64, limit: Int, on connection: any SQLConnection) throws -> [StoredBlock] {
        try connection.query(
            "SELECT \(blockColumns) FROM localchain_blocks WHERE chain_id = $1 AND number < $2 ORDER BY number DESC LIMIT $3",
            [.int(Int64(clamping: chainID)), .int(Int64(clamping: before)), .int(Int64(limit))]
        ).map(block)
    }

    static func block(_ row: SQLRow) throws -> StoredBlock {
        StoredBlock(
            number: UInt64(try row.int(0)),
            hash: try row.text(1),
            parentHash: try row.text(2),
            timestamp: UInt64(try row.int(3)),
            transactionCount: Int(try row.int(4)),
            data: try row.bytes(5)
        )
    }

    static let transactionColumns = "hash, block_number, position, sender, recipient, nonce, value, status, raw"

    static func insert(_ transactions: [ChainTransaction], chainID: UInt64, on connection: any SQLConnection) throws {
        for t in transactions {
            try connection.execute(
                "INSERT INTO localchain_transactions (chain_id, \(transactionColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                [
                    .int(Int64(clamping: chainID)), .text(t.hash), .int(Int64(clamping: t.blockNumber)), .int(Int64(t.position)),
                    .text(t.sender.description),
                    .text(t.recipient.description), .int(Int64(clamping: t.nonce)), .uint128(t.value), .int(Int64(t.status)), .bytes(t.raw),
                ]
            )
        }
    }

    static func transaction(chainID: UInt64, hash: String, on connection: any SQLConnection) throws -> ChainTransaction? {
        try connection.queryFirst(
            "SELECT \(transactionColumns) FROM localchain_transactions WHERE chain_id = $1 AND hash = $2",
            [.int(Int64(clamping: chainID)), .text(hash)]
        ).map(transaction)
    }

    static func transactions(chainID: UInt64, block: UInt64, on connection: any SQLConnection) throws -> [ChainTransaction] {
        try connection.query(
            "SELECT \(transactionColumns) FROM localchain_transactions WHERE chain_id = $1 AND block_number = $2 ORDER BY position",
            [.int(Int64(clamping: chainID)), .int(Int64(clamping: block))]
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
        let order = " AND (block_number < $2 OR (block_number = $2 AND position < $3))"
        var binds: [SQLValue] = [.int(Int64(clamping: chainID)), .int(Int64(clamping: before.0)), .int(Int64(before.1))]
        var sql = "SELECT \(transactionColumns) FROM localchain_transactions WHERE chain_id = $1" + order
        if let address {
            sql += " AND (sender = $4 OR recipient = $4)"
            binds.append(.text(address.description))
        }
        sql += " ORDER BY block_number DESC, position DESC LIMIT $\(binds.count + 1)"
        binds.append(.int(Int64(limit)))
        return try connection.query(sql, binds).map(transaction)
    }

    static func transaction(_ row: SQLRow) throws -> ChainTransaction {
        ChainTransaction(
            hash: try row.text(0),
            blockNumber: UInt64(try row.int(1)),
            position: Int(try row.int(2)),
            sender: try EthereumAddress(try row.text(3)),
            recipient: try EthereumAddress(try row.text(4)),
            nonce: UInt64(try row.int(5)),
            value: try row.uint128(6),
            status: UInt8(clamping: try row.int(7)),
            raw: try row.bytes(8)
        )
    }
}
