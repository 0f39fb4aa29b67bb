/// Server-side secrets in `hub_secrets`, generated on first use and then stable across restarts
/// and shared by every process on the same database.
enum HubSecrets {
    /// The JWT signing key: 64 random bytes (HS256's block size; RFC 7518 asks for at least 32).
    static let jwtSigningKey = "identity.jwt.hs256"

    /// The secret named `name`, created from `make()` if it does not exist yet. Must run in a write
    /// transaction: concurrent first uses (even from two processes) insert at most one value and
    /// all read that one.
    static func value(
        named name: String,
        orCreate make: () -> [UInt8],
        at now: LedgerTimestamp,
        on connection: any SQLConnection
    ) throws -> [UInt8] {
        if let row = try connection.queryFirst("SELECT value FROM hub_secrets WHERE name = \(name)") {
            return try row.bytes("value")
        }
        try connection.execute(
            "INSERT INTO hub_secrets (name, value, created_at) VALUES (\(name), \(make()), \(now)) ON CONFLICT (name) DO NOTHING"
        )
        return try connection.queryFirst("SELECT value FROM hub_secrets WHERE name = \(name)")!.bytes("value")
    }
}
