extension Identity {
    /// Deletes rows that can never be used again: refresh tokens past their expiry (used,
    /// revoked or not) and wallet challenges past theirs; and drops JWT signing keys retired
    /// longer ago than any token they signed can live. Returns how many rows and keys went.
    ///
    /// Correctness never depends on it (expired rows are refused either way); it only keeps the
    /// tables small. Run it now and then, e.g. daily from a service.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        let now = clock.now()
        let rows = try await database.write { connection in
            let tokens = try connection.execute("DELETE FROM hub_refresh_tokens WHERE expires_at <= \(now)")
            let challenges = try connection.execute("DELETE FROM hub_wallet_challenges WHERE expires_at <= \(now)")
            return tokens + challenges
        }
        return rows + (try await tokens.dropRetiredKeys())
    }
}
