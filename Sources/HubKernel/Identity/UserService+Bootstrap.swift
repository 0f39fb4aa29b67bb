extension UserService {
    static let bootstrapPrefix = "hubb_"

    /// The one-time token that lets the first admin sign up, when the hub has no enabled admin;
    /// `nil` once it has one. `hubd serve` prints it at start.
    ///
    /// Only the token's hash is kept, so a token printed earlier cannot be shown again: each call
    /// while no admin exists issues a fresh token and invalidates any unused earlier one. Appends
    /// `identity.bootstrap.issued`.
    public func bootstrapIfNoAdmin() async throws -> String? {
        let now = context.now()
        let token = OpaqueToken.generate(prefix: Self.bootstrapPrefix)
        return try await context.database.write { connection -> String? in
            guard try UserStore.enabledAdminCount(on: connection) == 0 else { return nil }
            try connection.execute("UPDATE hub_bootstrap_tokens SET replaced_at = \(now) WHERE used_at IS NULL AND replaced_at IS NULL")
            let id = IdentityCrypto.uuid()
            try connection.execute("INSERT INTO hub_bootstrap_tokens (id, token_hash, created_at) VALUES (\(id), \(token.hash), \(now))")
            try EventLog.append([IdentityEvents.bootstrapIssued(id: id, at: now)], on: connection)
            return token.plaintext
        }
    }

    /// Creates the first admin with a bootstrap token and signs them in. Works once.
    /// - Throws: `bootstrap_invalid` (unknown or superseded token), `bootstrap_used` (already
    ///   redeemed), `bootstrap_closed` (an admin exists already), and the input errors of
    ///   ``create(_:by:)``.
    public func redeemBootstrap(token: String, email: String, password: String, displayName: String) async throws -> SignedIn {
        guard let tokenHash = OpaqueToken.hash(presented: token, prefix: Self.bootstrapPrefix) else {
            throw IdentityError(.bootstrapInvalid, "that is not a bootstrap token", field: "token")
        }
        let fields = try validate(NewUser(email: email, displayName: displayName, roles: [.admin], password: password))
        let hash = try await passwords.hash(password)
        let now = context.now()
        let user = try await context.database.write { connection -> User in
            guard
                let row = try connection.queryFirst(
                    "SELECT id, used_at, replaced_at FROM hub_bootstrap_tokens WHERE token_hash = \(tokenHash)" + .forUpdate(connection.dialect)
                )
            else { throw IdentityError(.bootstrapInvalid, "unknown bootstrap token", field: "token") }
            guard try row.optionalTimestamp("used_at") == nil else {
                throw IdentityError(.bootstrapUsed, "this bootstrap token has been used", field: "token")
            }
            guard try row.optionalTimestamp("replaced_at") == nil else {
                throw IdentityError(.bootstrapInvalid, "a newer bootstrap token replaced this one; use the latest printed", field: "token")
            }
            guard try UserStore.enabledAdminCount(on: connection) == 0 else {
                throw IdentityError(.bootstrapClosed, "the hub already has an admin", field: "token")
            }
            let user = try UserStore.insert(
                email: fields.email,
                displayName: fields.displayName,
                roles: [.admin],
                passwordHash: hash,
                createdBy: nil,
                via: "bootstrap",
                at: now,
                on: connection
            )
            try connection.execute("UPDATE hub_bootstrap_tokens SET used_at = \(now) WHERE id = \(try row.text("id"))")
            return user
        }
        return SignedIn(user: user, tokens: try await tokens.issue(for: user))
    }
}
