import HubKernel

/// The rail's tables (migration group `substrate`). Final once released: a change is a new
/// migration appended to the list.
enum SubstrateMigrations {
    static let all: [Migration] = [wallets]

    /// Wallets: one row per address (its 32-byte public key), one user each. `sealed_secret` is
    /// the mnemonic's entropy of a custodial wallet sealed under the rail's data key
    /// (``WalletSecrets``), NULL for an external one: the hub keeps no secret it did not make.
    static let wallets = Migration(
        "001_wallets",
        portable: """
            CREATE TABLE substrate_wallets (
                public_key {bytes} PRIMARY KEY,
                user_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('custodial', 'external')),
                scheme TEXT NOT NULL CHECK (scheme IN ('sr25519', 'ed25519')),
                sealed_secret {bytes},
                created_at {bigint} NOT NULL
            );
            CREATE INDEX substrate_wallets_user ON substrate_wallets (user_id, created_at);
            """
    )
}
