extension Identity {
    /// Deletes rows that can never be used again: refresh tokens past their expiry (used,
    /// revoked or not), wallet challenges past theirs, and failed sign-in counters whose window
    /// has passed; and drops JWT signing keys retired longer ago than any token they signed can
    /// live. Returns how many rows and keys went.
    ///
    /// Correctness never depends on it (expired rows are refused either way); it only keeps the
    /// tables small. Run it now and then, e.g. daily from a service.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        let now = clock.now()
        let window = configuration.signInLimits.window.nanoseconds
        let rows = try await database.write { connection in
            let tokens = try connection.execute("DELETE FROM hub_refresh_tokens WHERE expires_at <= \(now)")
            let challenges = try connection.execute("DELETE FROM hub_wallet_challenges WHERE expires_at <= \(now)")
            let failures = try SignInLimits.purge(
                before: LedgerTimestamp(nanoseconds: now.nanoseconds &- min(now.nanoseconds, window)),
                on: connection
            )
            return tokens + challenges + failures
        }
        return rows + (try await tokens.dropRetiredKeys())
    }
}
