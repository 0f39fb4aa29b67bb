import Foundation

/// The HS256 keys access tokens are signed with, kept as one secret in the vault
/// (`identity/jwt-keys`) so that a rotation replaces the whole set in one write.
///
/// Exactly one key is current (new tokens are signed with it and carry its `kid`); keys retired
/// by a rotation still verify until ``verifiesUntil(_:grace:)``, the longest a token signed with
/// them can live, and are dropped at the next rotation after that. A pure value: no I/O, no clock.
struct JWTKeySet: Codable, Sendable, Equatable {
    struct Key: Codable, Sendable, Equatable {
        /// The JWT header's `kid`.
        var kid: String
        /// 64 random bytes (HS256's block size), base64.
        var secret: String
        var createdAt: UInt64
        /// When a rotation replaced it; `nil` for the current key.
        var retiredAt: UInt64?
        /// The single key of before the vault, whose tokens carry no `kid`: only it verifies those.
        var legacy: Bool

        var bytes: [UInt8] { Array(Data(base64Encoded: secret) ?? Data()) }
    }

    var keys: [Key]

    /// The key new tokens are signed with.
    var current: Key {
        guard let key = keys.last(where: { $0.retiredAt == nil }) else { preconditionFailure("a JWT key set without a current key") }
        return key
    }

    /// A set with one new random key.
    static func fresh(now: LedgerTimestamp) -> JWTKeySet {
        JWTKeySet(keys: [newKey(now: now)])
    }

    /// The set an existing deployment migrates to: its one key (from `hub_secrets`) stays current
    /// and keeps verifying tokens without a `kid`; new tokens from it carry a `kid`.
    static func migrating(legacySecret: [UInt8], now: LedgerTimestamp) -> JWTKeySet {
        JWTKeySet(keys: [
            Key(kid: newKID(), secret: Data(legacySecret).base64EncodedString(), createdAt: now.nanoseconds, retiredAt: nil, legacy: true)
        ])
    }

    /// A new current key; the current one retires now; keys retired longer than `grace` ago go.
    func rotated(now: LedgerTimestamp, grace: Duration) -> JWTKeySet {
        var keys = pruned(now: now, grace: grace).keys
        for index in keys.indices where keys[index].retiredAt == nil { keys[index].retiredAt = now.nanoseconds }
        keys.append(Self.newKey(now: now))
        return JWTKeySet(keys: keys)
    }

    /// Without the keys that no longer verify at `now`.
    func pruned(now: LedgerTimestamp, grace: Duration) -> JWTKeySet {
        JWTKeySet(keys: verifying(at: now, grace: grace))
    }

    /// The keys that verify tokens at `now`.
    func verifying(at now: LedgerTimestamp, grace: Duration) -> [Key] {
        keys.filter { verifiesUntil($0, grace: grace).map { $0 > now.nanoseconds } ?? true }
    }

    /// When `key` stops verifying: its retirement plus `grace` (the longest a token lives, plus how
    /// long another process may sign with it before it sees the rotation); `nil` while current.
    func verifiesUntil(_ key: Key, grace: Duration) -> UInt64? {
        key.retiredAt.map { LedgerTimestamp(nanoseconds: $0).adding(grace).nanoseconds }
    }

    static func newKey(now: LedgerTimestamp) -> Key {
        Key(
            kid: newKID(),
            secret: Data(IdentityCrypto.randomBytes(64)).base64EncodedString(),
            createdAt: now.nanoseconds,
            retiredAt: nil,
            legacy: false
        )
    }

    /// 12 random bytes, base64url: unique without coordination between processes.
    static func newKID() -> String { IdentityCrypto.base64URL(IdentityCrypto.randomBytes(12)) }

    var encoded: [UInt8] { Array(try! JSONEncoder().encode(self)) }

    init(keys: [Key]) { self.keys = keys }

    /// - Throws: ``SecretsError`` `secret_tampered` when the stored bytes are not a key set.
    init(encoded: [UInt8]) throws {
        guard let set = try? JSONDecoder().decode(JWTKeySet.self, from: Data(encoded)), set.keys.contains(where: { $0.retiredAt == nil }),
            set.keys.allSatisfy({ $0.bytes.count >= 32 })
        else {
            throw SecretsError(.tampered, "identity/jwt-keys does not hold a JWT key set")
        }
        self = set
    }
}
