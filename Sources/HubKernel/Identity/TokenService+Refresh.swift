import Logging

extension TokenService {
    /// What one refresh transaction decided. Reuse is a result, not a thrown error, because the
    /// family's revocation must commit before the caller is refused.
    private enum RefreshOutcome: Sendable {
        case rotated(User, family: String, expiresAt: LedgerTimestamp)
        case reused(UserID, family: String)
        case refused(IdentityError)
    }

    /// Exchanges a refresh token for a new pair in the same family and marks it used.
    /// - Throws: `token_invalid` (unknown or malformed), `token_expired`, `token_revoked` (after
    ///   logout or reuse), `refresh_reused` (the token was already used: the family is now
    ///   revoked), `user_disabled`.
    public func refresh(_ refreshToken: String) async throws -> TokenPair {
        guard let hash = OpaqueToken.hash(presented: refreshToken, prefix: Self.refreshPrefix) else {
            throw IdentityError(.tokenInvalid, "that is not a refresh token")
        }
        let now = context.now()
        let next = OpaqueToken.generate(prefix: Self.refreshPrefix)
        let lifetime = context.configuration.refreshTokenLifetime
        let outcome = try await context.database.write { connection -> RefreshOutcome in
            guard
                let row = try connection.queryFirst(
                    "SELECT id, user_id, family_id, expires_at, used_at, revoked_at FROM hub_refresh_tokens WHERE token_hash = \(hash)"
                        + .forUpdate(connection.dialect)
                )
            else { return .refused(IdentityError(.tokenInvalid, "unknown refresh token")) }
            let id = try row.text("id")
            let userID: UserID = try row.decode("user_id")
            let family = try row.text("family_id")
            if try row.optionalTimestamp("revoked_at") != nil {
                return .refused(IdentityError(.tokenRevoked, "this session has ended; sign in again"))
            }
            if try row.optionalTimestamp("used_at") != nil {
                try Self.revokeFamily(family, at: now, on: connection)
                try EventLog.append([IdentityEvents.reuseDetected(userID: userID, familyID: family, at: now)], on: connection)
                return .reused(userID, family: family)
            }
            guard now < (try row.timestamp("expires_at")) else {
                return .refused(IdentityError(.tokenExpired, "the refresh token has expired; sign in again"))
            }
            guard let user = try UserStore.find(userID, on: connection)?.user, !user.disabled else {
                return .refused(IdentityError(.userDisabled, "this account is disabled"))
            }
            let nextID = IdentityCrypto.uuid()
            try connection.execute("UPDATE hub_refresh_tokens SET used_at = \(now), replaced_by = \(nextID) WHERE id = \(id)")
            let expiresAt = now.adding(lifetime)
            try Self.insertRefresh(next, family: family, userID: userID, now: now, expiresAt: expiresAt, id: nextID, on: connection)
            return .rotated(user, family: family, expiresAt: expiresAt)
        }
        switch outcome {
        case .rotated(let user, let family, let expiresAt):
            return try await pair(for: user, session: family, refresh: next, refreshExpiresAt: expiresAt, now: now)
        case .reused(let userID, let family):
            context.logger.info(
                "refresh token reused; session revoked",
                metadata: ["identity.user.id": "\(userID)", "identity.session.family": "\(family)"]
            )
            throw IdentityError(.refreshReused, "this refresh token was already used; the session has been ended for safety")
        case .refused(let error):
            throw error
        }
    }

    /// Ends the session the refresh token belongs to (its whole family). Idempotent.
    /// - Throws: `token_invalid` for a token this hub never issued.
    public func logout(refreshToken: String) async throws {
        guard let hash = OpaqueToken.hash(presented: refreshToken, prefix: Self.refreshPrefix) else {
            throw IdentityError(.tokenInvalid, "that is not a refresh token")
        }
        let now = context.now()
        let found = try await context.database.write { connection -> Bool in
            guard let row = try connection.queryFirst("SELECT family_id FROM hub_refresh_tokens WHERE token_hash = \(hash)") else {
                return false
            }
            try Self.revokeFamily(try row.text("family_id"), at: now, on: connection)
            return true
        }
        guard found else { throw IdentityError(.tokenInvalid, "unknown refresh token") }
    }

    /// Ends every session of `userID` ("sign out everywhere"); returns how many tokens it revoked.
    /// Their access tokens are refused from then on (within the authenticator's cache window).
    @discardableResult
    public func revokeAll(for userID: UserID) async throws -> Int {
        let now = context.now()
        return try await context.database.write { try Self.revokeAll(userID, at: now, on: $0) }
    }

    static func revokeAll(_ userID: UserID, at now: LedgerTimestamp, on connection: any SQLConnection) throws -> Int {
        try connection.execute("UPDATE hub_refresh_tokens SET revoked_at = \(now) WHERE user_id = \(userID) AND revoked_at IS NULL")
    }

    static func revokeFamily(_ family: String, at now: LedgerTimestamp, on connection: any SQLConnection) throws {
        try connection.execute("UPDATE hub_refresh_tokens SET revoked_at = \(now) WHERE family_id = \(family) AND revoked_at IS NULL")
    }
}
