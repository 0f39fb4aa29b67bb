import ChainKit
import EVMKit
import HubKernel

/// Contract code and storage, each chain's block gas limit and state root kind, and each
/// account's storage root and code hash (kept with the account, so a block's state root needs
/// no contract's storage unless that storage changed): the tables the EVM's state needs
/// beyond nonces and balances (`localchain_accounts`). Synchronous SQL like ``LocalChainStore``.
/// Slots and values are stored as 32 big-endian bytes; a slot set to zero is deleted, so a row
/// exists only for a non-zero slot (as Ethereum's storage trie holds only those).
enum ContractStore {
    static let migration = Migration(
        "012_contracts",
        portable: """
            CREATE TABLE localchain_code (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                address TEXT NOT NULL,
                code {bytes} NOT NULL,
                PRIMARY KEY (chain_id, address)
            );
            CREATE TABLE localchain_storage (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                address TEXT NOT NULL,
                slot {bytes} NOT NULL,
                value {bytes} NOT NULL,
                PRIMARY KEY (chain_id, address, slot)
            );
            ALTER TABLE localchain_chains ADD COLUMN block_gas_limit {bigint} NOT NULL DEFAULT 30000000;
            ALTER TABLE localchain_chains ADD COLUMN state_root TEXT NOT NULL DEFAULT 'keccak-merkle';
            ALTER TABLE localchain_accounts ADD COLUMN storage_root {bytes};
            ALTER TABLE localchain_accounts ADD COLUMN code_hash {bytes};
            CREATE TABLE localchain_logs (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                block_number {bigint} NOT NULL,
                log_index {bigint} NOT NULL,
                transaction_hash TEXT NOT NULL,
                transaction_index {bigint} NOT NULL,
                address TEXT NOT NULL,
                topic0 TEXT,
                topic1 TEXT,
                topic2 TEXT,
                topic3 TEXT,
                data {bytes} NOT NULL,
                PRIMARY KEY (chain_id, block_number, log_index)
            );
            CREATE INDEX localchain_logs_address ON localchain_logs (chain_id, address, block_number);
            CREATE INDEX localchain_logs_topic0 ON localchain_logs (chain_id, topic0, block_number);
            """
    )

    static func code(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> [UInt8] {
        try connection.queryFirst(
            "SELECT code FROM localchain_code WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description)"
        )?.bytes("code") ?? []
    }

    static func slot(chainID: UInt64, address: EthereumAddress, slot: U256, on connection: any SQLConnection) throws -> U256 {
        guard
            let row = try connection.queryFirst(
                """
                SELECT value FROM localchain_storage WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description) \
                AND slot = \(slot.bigEndianBytes)
                """
            )
        else { return .zero }
        return U256(bigEndian: try row.bytes("value"))
    }

    /// Every non-zero slot of a contract (to recompute its storage root after a block changed it).
    static func slots(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> [U256: U256] {
        var slots: [U256: U256] = [:]
        for row in try connection.query(
            "SELECT slot, value FROM localchain_storage WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description)"
        ) {
            slots[U256(bigEndian: try row.bytes("slot"))] = U256(bigEndian: try row.bytes("value"))
        }
        return slots
    }

    static func hasStorage(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 AS found FROM localchain_storage WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description) LIMIT 1"
        ) != nil
    }

    /// Writes what a block did to code and storage: code set (empty deletes it), storage of
    /// `cleared` accounts dropped first (self-destructed or created afresh), then each slot written.
    /// Nothing reads these statements' counts: deferred, they cost no round trip each on PostgreSQL.
    static func write(_ changes: ContractChanges, chainID: UInt64, on connection: any SQLConnection) throws {
        let chain = Int64(clamping: chainID)
        for address in changes.clearedStorage.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            try connection.executeDeferred("DELETE FROM localchain_storage WHERE chain_id = \(chain) AND address = \(address.description)")
        }
        for (address, code) in changes.code.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            try connection.executeDeferred("DELETE FROM localchain_code WHERE chain_id = \(chain) AND address = \(address.description)")
            if !code.isEmpty {
                try connection.executeDeferred(
                    "INSERT INTO localchain_code (chain_id, address, code) VALUES (\(chain), \(address.description), \(code))"
                )
            }
        }
        for (address, slots) in changes.storage.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            for (slot, value) in slots.sorted(by: { $0.key < $1.key }) {
                try connection.executeDeferred(
                    "DELETE FROM localchain_storage WHERE chain_id = \(chain) AND address = \(address.description) AND slot = \(slot.bigEndianBytes)"
                )
                if !value.isZero {
                    try connection.executeDeferred(
                        """
                        INSERT INTO localchain_storage (chain_id, address, slot, value) \
                        VALUES (\(chain), \(address.description), \(slot.bigEndianBytes), \(value.bigEndianBytes))
                        """
                    )
                }
            }
        }
    }

    static func blockGasLimit(chainID: UInt64, on connection: any SQLConnection) throws -> UInt64 {
        UInt64(
            try connection.queryFirst("SELECT block_gas_limit FROM localchain_chains WHERE chain_id = \(Int64(clamping: chainID))")?.int(
                "block_gas_limit"
            ) ?? 0
        )
    }

    static func setBlockGasLimit(_ limit: UInt64, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute(
            "UPDATE localchain_chains SET block_gas_limit = \(Int64(clamping: limit)) WHERE chain_id = \(Int64(clamping: chainID))"
        )
    }

    /// Hashes of the blocks before `number` that BLOCKHASH may read (the last 256).
    static func recentBlockHashes(chainID: UInt64, before number: UInt64, on connection: any SQLConnection) throws -> [UInt64: U256] {
        let from = number > 256 ? number - 256 : 0
        var hashes: [UInt64: U256] = [:]
        for row in try connection.query(
            """
            SELECT number, hash FROM localchain_blocks WHERE chain_id = \(Int64(clamping: chainID)) \
            AND number >= \(Int64(clamping: from)) AND number < \(Int64(clamping: number))
            """
        ) {
            hashes[UInt64(try row.int("number"))] = U256(bigEndian: try Hex.decode(try row.text("hash"), length: 32))
        }
        return hashes
    }
}
