/// Names in `hub_secrets`, the plaintext table of before the secrets vault. Nothing is written
/// there any more; what it held moves into the vault at first use (``TokenService/loadKeySet()``)
/// and its row is deleted in the same transaction.
enum HubSecrets {
    /// The JWT signing key of before the vault: 64 random bytes, used for tokens without a `kid`.
    static let jwtSigningKey = "identity.jwt.hs256"
}
