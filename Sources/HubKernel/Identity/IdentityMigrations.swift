/// The identity tables (users, sessions, API keys, wallet sign-in, bootstrap, secrets).
///
/// Times are nanoseconds since the Unix epoch in `{bigint}` columns, as in the ledger. Secrets
/// are never stored: refresh, bootstrap and API-key secrets as SHA-256 (they are 256 random bits,
/// so a fast hash suffices), passwords as argon2id strings. User ids are UUID text, the same text
/// the ledger uses as `owner_id` of a user's accounts.
enum IdentityMigrations {
    static let all: [Migration] = [
        Migration(
            "003_identity",
            portable: """
                CREATE TABLE hub_users (
                    id TEXT PRIMARY KEY,
                    email TEXT UNIQUE CHECK (email = lower(email)),
                    display_name TEXT NOT NULL,
                    roles TEXT NOT NULL,
                    password_hash TEXT,
                    created_by TEXT REFERENCES hub_users (id),
                    created_at {bigint} NOT NULL,
                    disabled INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE hub_refresh_tokens (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES hub_users (id),
                    family_id TEXT NOT NULL,
                    token_hash {bytes} NOT NULL UNIQUE,
                    created_at {bigint} NOT NULL,
                    expires_at {bigint} NOT NULL,
                    used_at {bigint},
                    replaced_by TEXT,
                    revoked_at {bigint}
                );
                CREATE INDEX hub_refresh_tokens_family ON hub_refresh_tokens (family_id);
                CREATE INDEX hub_refresh_tokens_user ON hub_refresh_tokens (user_id);
                CREATE TABLE hub_api_keys (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES hub_users (id),
                    name TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    secret_hash {bytes} NOT NULL,
                    prefix TEXT NOT NULL,
                    created_at {bigint} NOT NULL,
                    last_used_at {bigint},
                    revoked_at {bigint}
                );
                CREATE INDEX hub_api_keys_user ON hub_api_keys (user_id, created_at);
                CREATE TABLE hub_wallet_challenges (
                    nonce TEXT PRIMARY KEY,
                    scheme TEXT NOT NULL,
                    address TEXT NOT NULL,
                    message TEXT NOT NULL,
                    created_at {bigint} NOT NULL,
                    expires_at {bigint} NOT NULL,
                    used_at {bigint}
                );
                CREATE INDEX hub_wallet_challenges_expiry ON hub_wallet_challenges (expires_at);
                CREATE TABLE hub_wallet_links (
                    scheme TEXT NOT NULL,
                    address TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES hub_users (id),
                    created_at {bigint} NOT NULL,
                    PRIMARY KEY (scheme, address)
                );
                CREATE INDEX hub_wallet_links_user ON hub_wallet_links (user_id);
                CREATE TABLE hub_bootstrap_tokens (
                    id TEXT PRIMARY KEY,
                    token_hash {bytes} NOT NULL UNIQUE,
                    created_at {bigint} NOT NULL,
                    used_at {bigint},
                    replaced_at {bigint}
                );
                CREATE TABLE hub_secrets (
                    name TEXT PRIMARY KEY,
                    value {bytes} NOT NULL,
                    created_at {bigint} NOT NULL
                );
                """
        )
    ]
}
