extension UserService {
    /// Signs in with email and password and starts a session.
    ///
    /// An unknown email, a user without a password and a wrong password all fail with the same
    /// `invalid_credentials`, and all three run one argon2id verification (against a throwaway
    /// hash when there is nothing to check), so neither the answer nor its timing tells whether
    /// an address has an account. A hash made with older parameters is replaced on success.
    ///
    /// Failures count against the email, the email from the client `address` and the address
    /// (``SignInLimits``); at a limit the attempt is refused before any hashing.
    /// - Throws: `invalid_credentials`, `user_disabled` (only after a correct password),
    ///   `too_many_attempts`.
    public func login(email: String, password: String, from address: String? = nil) async throws -> SignedIn {
        let refused = IdentityError(.invalidCredentials, "wrong email or password")
        let normalised = try? EmailAddress.normalise(email)
        let attempt = SignInLimits.Attempt(means: "password", account: normalised ?? email, address: address)
        let failedBefore = try await limits.check(attempt)
        let row = try await normalised.asyncMap { email in
            try await context.database.read { try UserStore.find(email: email, on: $0) }
        }
        guard let row = row ?? nil, let stored = row.passwordHash else {
            _ = try await passwords.verifyAgainstDummy(password)
            try await limits.recordFailure(attempt)
            throw refused
        }
        guard try await passwords.verify(password, against: stored) else {
            try await limits.recordFailure(attempt)
            throw refused
        }
        if failedBefore { try await limits.recordSuccess(attempt) }
        guard !row.user.disabled else { throw IdentityError(.userDisabled, "this account is disabled") }
        if passwords.needsRehash(stored) {
            try await rehash(row.user.id, password: password, replacing: stored)
        }
        return SignedIn(user: row.user, tokens: try await tokens.issue(for: row.user))
    }

    /// Replaces a hash made with old parameters, unless the password changed meanwhile.
    private func rehash(_ id: UserID, password: String, replacing old: String) async throws {
        let hash = try await passwords.hash(password)
        _ = try await context.database.write { connection in
            try connection.execute("UPDATE hub_users SET password_hash = \(hash) WHERE id = \(id) AND password_hash = \(old)")
        }
    }
}
