import Foundation

/// API keys: long-lived credentials for programs, each bound to a user and narrowed by scopes.
///
/// A key reads `hub_<id>_<secret>`: 16 hex digits of id, then 32 random bytes in base64url. Only
/// the SHA-256 of the secret is stored (256 random bits need no slow hash) and it is compared in
/// constant time. A key never grants more than its user's roles allow now: creation refuses
/// scopes the roles do not permit, and ``Principal/allows(scope:)`` checks both on every request.
///
/// ```swift
/// let created = try await identity.apiKeys.create(for: user.id, name: "till 3", scopes: ["ledger:write"])
/// print(created.plaintext)   // shown once
/// let caller = try await identity.apiKeys.authenticate(created.plaintext)
/// ```
public final class APIKeyService: Sendable {
    static let prefix = "hub_"
    static let select: SQL = "SELECT id, user_id, name, scopes, prefix, created_at, last_used_at, revoked_at, secret_hash FROM hub_api_keys"

    let context: IdentityContext

    init(context: IdentityContext) {
        self.context = context
    }

    /// Creates a key for `userID` from scope names (as a request carries them).
    /// - Throws: `unknown_scope`, `invalid_field` (empty scopes or a bad name),
    ///   `scope_not_allowed` (a scope the user's roles do not permit), `user_not_found`, `user_disabled`.
    public func create(for userID: UserID, name: String, scopes: [String]) async throws -> CreatedAPIKey {
        try await create(for: userID, name: name, scopes: Set(try scopes.map(APIScope.init(validating:))))
    }

    /// Creates a key for `userID` with `scopes`.
    public func create(for userID: UserID, name: String, scopes: Set<APIScope>) async throws -> CreatedAPIKey {
        let name = try IdentityValidation.name(name, field: "name")
        guard !scopes.isEmpty else { throw IdentityError(.invalidField, "an API key needs at least one scope", field: "scopes") }
        let id = APIKeyID.random()
        let secret = IdentityCrypto.base64URL(IdentityCrypto.randomBytes(32))
        let plaintext = "\(Self.prefix)\(id)_\(secret)"
        let now = context.now()
        let key = APIKey(
            id: id,
            userID: userID,
            name: name,
            scopes: scopes,
            prefix: "\(Self.prefix)\(id)_\(secret.prefix(4))",
            createdAt: now.date,
            lastUsedAt: nil,
            revokedAt: nil
        )
        try await context.database.write { connection in
            guard let user = try UserStore.find(userID, lock: true, on: connection)?.user else {
                throw IdentityError(.userNotFound, "no user \(userID)", field: "user_id")
            }
            guard !user.disabled else { throw IdentityError(.userDisabled, "a disabled user cannot have new API keys", field: "user_id") }
            if let denied = scopes.sorted().first(where: { !$0.isPermitted(for: user.roles) }) {
                throw IdentityError(.scopeNotAllowed, "the user's roles do not allow the '\(denied)' scope", field: "scopes")
            }
            try connection.execute(
                """
                INSERT INTO hub_api_keys (id, user_id, name, scopes, secret_hash, prefix, created_at) \
                VALUES (\(id.rawValue), \(userID), \(name), \(Self.encode(scopes)), \(SHA256Digest.hash(secret)), \(key.prefix), \(now))
                """
            )
            try EventLog.append([IdentityEvents.apiKey(key, revoked: false, at: now)], on: connection)
        }
        return CreatedAPIKey(key: key, plaintext: plaintext)
    }

    /// The caller behind a presented key.
    /// - Throws: `api_key_invalid` (malformed, unknown, wrong secret), `api_key_revoked`, `user_disabled`.
    public func authenticate(_ presented: String) async throws -> Principal {
        guard let (id, secret) = Self.parse(presented) else { throw IdentityError(.apiKeyInvalid, "that is not an API key of this hub") }
        let found = try await context.database.read { connection -> (APIKey, [UInt8], User?)? in
            guard let row = try connection.queryFirst(Self.select + " WHERE id = \(id.rawValue)") else { return nil }
            let key = try Self.key(row)
            return (key, try row.bytes("secret_hash"), try UserStore.find(key.userID, on: connection)?.user)
        }
        guard let (key, storedHash, user) = found, IdentityCrypto.constantTimeEqual(SHA256Digest.hash(secret), storedHash) else {
            throw IdentityError(.apiKeyInvalid, "that is not an API key of this hub")
        }
        guard !key.isRevoked else { throw IdentityError(.apiKeyRevoked, "this API key has been revoked") }
        guard let user, !user.disabled else { throw IdentityError(.userDisabled, "the API key's user is disabled") }
        try await touch(key)
        return Principal(userID: user.id, roles: user.roles, credential: .apiKey(key.id), scopes: key.scopes, displayName: user.displayName)
    }

    /// Records use at most once per ``IdentityConfiguration/apiKeyLastUsedResolution``: the
    /// condition in the `UPDATE` keeps concurrent requests from writing twice.
    private func touch(_ key: APIKey) async throws {
        let now = context.now()
        let threshold = now.adding(.zero - context.configuration.apiKeyLastUsedResolution)
        if let last = key.lastUsedAt, last > threshold.date { return }
        _ = try await context.database.write { connection in
            try connection.execute(
                "UPDATE hub_api_keys SET last_used_at = \(now) WHERE id = \(key.id.rawValue) AND (last_used_at IS NULL OR last_used_at <= \(threshold))"
            )
        }
    }

    /// The keys of `userID`, newest first, revoked ones included (they show as revoked).
    public func list(for userID: UserID) async throws -> [APIKey] {
        try await context.database.read { connection in
            try connection.query(Self.select + " WHERE user_id = \(userID) ORDER BY created_at DESC, id").map(Self.key)
        }
    }

    /// One key, or `nil`.
    public func key(_ id: APIKeyID) async throws -> APIKey? {
        try await context.database.read { connection in
            try connection.queryFirst(Self.select + " WHERE id = \(id.rawValue)").map(Self.key)
        }
    }

    /// Revokes a key; revoking a revoked key changes nothing and returns it as it is.
    /// - Throws: `api_key_not_found`.
    @discardableResult
    public func revoke(_ id: APIKeyID) async throws -> APIKey {
        let now = context.now()
        return try await context.database.write { connection in
            guard let row = try connection.queryFirst(Self.select + " WHERE id = \(id.rawValue)" + .forUpdate(connection.dialect)) else {
                throw IdentityError(.apiKeyNotFound, "no API key \(id)")
            }
            var key = try Self.key(row)
            guard !key.isRevoked else { return key }
            try connection.execute("UPDATE hub_api_keys SET revoked_at = \(now) WHERE id = \(id.rawValue)")
            key.revokedAt = now.date
            try EventLog.append([IdentityEvents.apiKey(key, revoked: true, at: now)], on: connection)
            return key
        }
    }

    // MARK: Parsing and rows

    /// Splits `hub_<16 hex>_<43 base64url>`; the secret may itself contain `_`.
    static func parse(_ presented: String) -> (APIKeyID, String)? {
        guard presented.hasPrefix(prefix) else { return nil }
        let rest = presented.dropFirst(prefix.count)
        guard let separator = rest.firstIndex(of: "_"), let id = APIKeyID(String(rest[..<separator])) else { return nil }
        let secret = String(rest[rest.index(after: separator)...])
        guard secret.utf8.count == 43, IdentityCrypto.decodeBase64URL(secret)?.count == 32 else { return nil }
        return (id, secret)
    }

    static func encode(_ scopes: Set<APIScope>) -> String {
        "[" + scopes.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
    }

    /// Scope names this build does not know (a newer hubd wrote them) are dropped: the key can
    /// only become narrower, never wider.
    static func decodeScopes(_ text: String) throws -> Set<APIScope> {
        guard let names = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
            throw DatabaseError(.decode, "hub_api_keys.scopes is not a JSON array of strings")
        }
        return Set(names.compactMap { try? APIScope(validating: $0) })
    }

    static func key(_ row: SQLRow) throws -> APIKey {
        let idText = try row.text("id")
        guard let id = APIKeyID(idText) else { throw DatabaseError(.decode, "'\(idText)' is not an API key id") }
        return APIKey(
            id: id,
            userID: try row.decode("user_id"),
            name: try row.text("name"),
            scopes: try decodeScopes(try row.text("scopes")),
            prefix: try row.text("prefix"),
            createdAt: try row.timestamp("created_at").date,
            lastUsedAt: try row.optionalTimestamp("last_used_at")?.date,
            revokedAt: try row.optionalTimestamp("revoked_at")?.date
        )
    }
}
