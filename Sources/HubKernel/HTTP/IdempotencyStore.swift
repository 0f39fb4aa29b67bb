/// The stored side of `Idempotency-Key` (DESIGN §3.6): one row per (caller, key) holding the hash of
/// the first request and, once it finished, its response.
struct IdempotencyStore: Sendable {
    let database: Database
    let clock: LedgerClock
    let configuration: IdempotencyConfiguration

    /// What to do with a request that carries a key.
    enum Claim: Sendable, Equatable {
        /// First time (or a crashed earlier attempt whose lock ran out): run the handler.
        case proceed
        /// Same key and body, finished: send this response again.
        case replay(StoredResponse)
        /// Same key, another request.
        case mismatch
        /// Same key and body, still running.
        case inFlight
    }

    struct StoredResponse: Sendable, Equatable {
        var status: Int
        var contentType: String?
        var location: String?
        var body: [UInt8]
    }

    func claim(scope: String, key: String, requestHash: [UInt8]) async throws -> Claim {
        let now = Int64(bitPattern: clock.now().nanoseconds)
        let lockUntil = now + Int64(configuration.lockTimeout.nanoseconds)
        let expiredBefore = now - Int64(configuration.retention.nanoseconds)
        return try await database.write { connection in
            let row = try connection.queryFirst(
                "SELECT request_hash, state, status, content_type, location, body, created_at, locked_until FROM hub_idempotency_keys WHERE scope = $1 AND key = $2"
                    + connection.dialect.forUpdate,
                [.text(scope), .text(key)]
            )
            guard let row, try row.int(6) >= expiredBefore else {
                // New, or a stale row the expiry service has not removed yet: start afresh.
                _ = try connection.execute("DELETE FROM hub_idempotency_keys WHERE scope = $1 AND key = $2", [.text(scope), .text(key)])
                _ = try connection.execute(
                    "INSERT INTO hub_idempotency_keys (scope, key, request_hash, state, created_at, locked_until) VALUES ($1, $2, $3, 'running', $4, $5)",
                    [.text(scope), .text(key), .bytes(requestHash), .int(now), .int(lockUntil)]
                )
                return .proceed
            }
            guard try row.bytes(0) == requestHash else { return .mismatch }
            if try row.text(1) == "done" {
                return .replay(
                    StoredResponse(
                        status: Int(try row.int(2)),
                        contentType: try row.optionalText(3),
                        location: try row.optionalText(4),
                        body: try row.optionalBytes(5) ?? []
                    )
                )
            }
            guard try row.int(7) < now else { return .inFlight }
            // The first attempt's process died while running it; take the key over.
            _ = try connection.execute(
                "UPDATE hub_idempotency_keys SET locked_until = $3 WHERE scope = $1 AND key = $2",
                [.text(scope), .text(key), .int(lockUntil)]
            )
            return .proceed
        }
    }

    func complete(scope: String, key: String, response: StoredResponse) async throws {
        try await database.write { connection in
            _ = try connection.execute(
                "UPDATE hub_idempotency_keys SET state = 'done', status = $3, content_type = $4, location = $5, body = $6 WHERE scope = $1 AND key = $2",
                [
                    .text(scope), .text(key), .int(Int64(response.status)),
                    response.contentType.map(SQLValue.text) ?? .null,
                    response.location.map(SQLValue.text) ?? .null,
                    .bytes(response.body),
                ]
            )
        }
    }

    /// Forgets a key whose request failed on the server's side, so that a retry runs it again.
    func release(scope: String, key: String) async throws {
        try await database.write { connection in
            _ = try connection.execute("DELETE FROM hub_idempotency_keys WHERE scope = $1 AND key = $2", [.text(scope), .text(key)])
        }
    }

    /// Deletes keys older than the retention period; returns how many.
    func expire() async throws -> Int {
        let cutoff = Int64(bitPattern: clock.now().nanoseconds) - Int64(configuration.retention.nanoseconds)
        return try await database.write { connection in
            try connection.execute("DELETE FROM hub_idempotency_keys WHERE created_at < $1", [.int(cutoff)])
        }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating (retention periods are days, far from overflow).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
