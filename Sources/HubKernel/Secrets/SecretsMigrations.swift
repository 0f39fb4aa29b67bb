/// The vault's table: one row per secret, sealed (``KeyEncryptionKey``), with the id of the
/// key-encryption key that sealed it (``SecretsKeyFile/keyID(_:)``).
enum SecretsMigrations {
    static let vault = Migration(
        "009_secrets_vault",
        portable: """
            CREATE TABLE hub_vault_secrets (
                namespace TEXT NOT NULL,
                name TEXT NOT NULL,
                kek_id TEXT NOT NULL,
                sealed {bytes} NOT NULL,
                updated_at {bigint} NOT NULL,
                PRIMARY KEY (namespace, name)
            );
            """
    )
}
