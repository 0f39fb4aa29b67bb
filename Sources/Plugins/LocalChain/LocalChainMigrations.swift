import HubKernel

/// The rail's tables (prefix `localchain_`). Released migrations are never edited.
enum LocalChainMigrations {
    static let all: [Migration] = [
        chains, accounts, pool, blocks, transactions, topups, relays, railOwnership, dropped, requests, poolOrder, ContractStore.migration,
    ]

    /// One row per event chain: its settings, its validator (address and sealed key) and its head.
    static let chains = Migration(
        "001_chains",
        portable: """
            CREATE TABLE localchain_chains (
                chain_id {bigint} PRIMARY KEY,
                name TEXT NOT NULL,
                currency_name TEXT NOT NULL,
                symbol TEXT NOT NULL,
                decimals {bigint} NOT NULL,
                asset TEXT NOT NULL UNIQUE,
                block_interval_ms {bigint} NOT NULL,
                host_latitude TEXT,
                host_longitude TEXT,
                radius_meters {bigint},
                status TEXT NOT NULL,
                organiser_id TEXT NOT NULL,
                validator TEXT NOT NULL,
                sealed_key {bytes} NOT NULL,
                genesis_hash TEXT NOT NULL,
                head_number {bigint} NOT NULL,
                head_hash TEXT NOT NULL,
                head_time_ms {bigint} NOT NULL,
                created_at {bigint} NOT NULL
            );
            """
    )

    /// The chain state: nonce and balance per address, and the ledger account that mirrors it.
    static let accounts = Migration(
        "002_accounts",
        portable: """
            CREATE TABLE localchain_accounts (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                address TEXT NOT NULL,
                nonce {bigint} NOT NULL,
                balance {u128} NOT NULL,
                ledger_account_id {id} NOT NULL,
                PRIMARY KEY (chain_id, address)
            );
            """
    )

    /// Accepted transactions not yet in a block. Durable: a restart seals them all the same.
    /// One transaction per (sender, nonce): with zero fees there is nothing to outbid, so a
    /// second one for a pending nonce is refused rather than replacing the first.
    static let pool = Migration("003_pool") { dialect in
        let serial =
            switch dialect {
            case .sqlite: "INTEGER PRIMARY KEY"
            case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            }
        return dialect.ddl(
            """
            CREATE TABLE localchain_pool (
                seq \(serial),
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                hash TEXT NOT NULL,
                sender TEXT NOT NULL,
                recipient TEXT NOT NULL,
                nonce {bigint} NOT NULL,
                value {u128} NOT NULL,
                raw {bytes} NOT NULL,
                received_at {bigint} NOT NULL,
                UNIQUE (chain_id, hash),
                UNIQUE (chain_id, sender, nonce)
            );
            """
        )
    }

    /// Sealed blocks: RLP, zstd-compressed, with the header fields the explorer looks up by.
    static let blocks = Migration(
        "004_blocks",
        portable: """
            CREATE TABLE localchain_blocks (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                number {bigint} NOT NULL,
                hash TEXT NOT NULL,
                parent_hash TEXT NOT NULL,
                timestamp {bigint} NOT NULL,
                transaction_count {bigint} NOT NULL,
                data {bytes} NOT NULL,
                PRIMARY KEY (chain_id, number),
                UNIQUE (chain_id, hash)
            );
            """
    )

    /// Executed transactions, one row each, for lookups by hash and by account.
    static let transactions = Migration(
        "005_transactions",
        portable: """
            CREATE TABLE localchain_transactions (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                hash TEXT NOT NULL,
                block_number {bigint} NOT NULL,
                position {bigint} NOT NULL,
                sender TEXT NOT NULL,
                recipient TEXT NOT NULL,
                nonce {bigint} NOT NULL,
                value {u128} NOT NULL,
                status {bigint} NOT NULL,
                raw {bytes} NOT NULL,
                PRIMARY KEY (chain_id, hash)
            );
            CREATE INDEX localchain_transactions_block ON localchain_transactions (chain_id, block_number, position);
            CREATE INDEX localchain_transactions_sender ON localchain_transactions (chain_id, sender, block_number);
            CREATE INDEX localchain_transactions_recipient ON localchain_transactions (chain_id, recipient, block_number);
            """
    )

    /// Top-ups and cash-outs: the organiser's rate (`pay` minor units of `topup_asset` buy
    /// `receive` minor units of the chain's currency) and collection account, and each cash-out's
    /// payout, held in the ledger from intake until its burn is sealed.
    static let topups = Migration(
        "006_topups",
        portable: """
            CREATE TABLE localchain_topup_rates (
                chain_id {bigint} PRIMARY KEY REFERENCES localchain_chains (chain_id),
                asset TEXT NOT NULL,
                pay {u128} NOT NULL,
                receive {u128} NOT NULL,
                collection_account_id {id} NOT NULL
            );
            CREATE TABLE localchain_cashouts (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                hash TEXT NOT NULL,
                hold_id {id} NOT NULL,
                payout_account_id {id} NOT NULL,
                pay_amount {u128} NOT NULL,
                state TEXT NOT NULL,
                PRIMARY KEY (chain_id, hash)
            );
            """
    )

    /// Chains this hub relays: `upstream` is the hub they are synced from (NULL for chains it
    /// validates itself). A relayed chain is never sealed here and has no sealed key.
    static let relays = Migration("007_relays", portable: "ALTER TABLE localchain_chains ADD COLUMN upstream TEXT;")

    /// The pool in arrival order per chain: the sealer takes the oldest entries of one chain, and
    /// intake bounds the pool's size by its first and last `seq` (two index lookups) instead of
    /// counting every entry for every transaction.
    static let poolOrder = Migration("011_pool_order", portable: "CREATE INDEX localchain_pool_order ON localchain_pool (chain_id, seq);")

    /// Chains created before the ledger knew rail ownership: their assets and every account of
    /// them (mirrors and issuance) become the rail's, so the kernel API can no longer move them.
    /// The one place the rail writes ledger tables itself: a one-time upgrade of rows it created,
    /// after the kernel's `007_rail_ownership` added the column (kernel migrations run first).
    static let railOwnership = Migration(
        "008_rail_ownership",
        portable: """
            UPDATE ledger_assets SET rail = 'localchain' WHERE code IN (SELECT asset FROM localchain_chains);
            UPDATE ledger_accounts SET rail = 'localchain' WHERE asset IN (SELECT asset FROM localchain_chains);
            """,
        alsoWrites: ["ledger_assets", "ledger_accounts"]
    )
}
