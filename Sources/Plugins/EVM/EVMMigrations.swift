import HubKernel

/// The rail's tables (migration group `evm`). Final once released: a change is a new migration
/// appended to the list.
enum EVMMigrations {
    static let all: [Migration] = [accounts]

    /// Custodial accounts: one key per user and chain, sealed under the rail's data key (see
    /// ``CustodialKeys``); `sealed_key` opens only for this chain and address.
    static let accounts = Migration("001_accounts") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_accounts (
                chain TEXT NOT NULL,
                user_id TEXT NOT NULL,
                address TEXT NOT NULL,
                sealed_key {bytes} NOT NULL,
                created_at {bigint} NOT NULL,
                PRIMARY KEY (chain, user_id)
            );
            CREATE UNIQUE INDEX evm_accounts_address ON evm_accounts (chain, address);
            """
        )
    }
}
