/// The stored side of `Idempotency-Key` (DESIGN §3.6): one row per (caller, key) holding the hash
/// of the first request and its reply. A row is only ever written complete, in the transaction
/// that made the request's change (or, for a request that wrote nothing, on its own), so after a
/// crash a key either has its reply or does not exist: it is never held by a dead process.
struct IdempotencyStore: Sendable {
    let database: Database
    let clock: LedgerClock
    let configuration: IdempotencyConfiguration

    /// What a key already holds, for a request with `requestHash`.
    enum Lookup: Sendable, Equatable {
        /// Never used (or expired): run the request.
        case fresh
        /// Used by the same request: send its reply again.
        case replay(HTTPReply)
        /// Used by another request.
        case mismatch
    }

    /// Reads the key on a reader, one statement with no transaction around it: the common case
    /// (a new key) costs no write and one round trip.
    func lookup(scope: String, key: String, requestHash: [UInt8]) async throws -> Lookup {
        let rows = try await database.query(Self.lookupStatement(scope: scope, key: key, cutoff: retentionCutoff))
        return try Self.lookup(rows.first, requestHash: requestHash)
    }

    /// Records a request's reply on its own (a request whose handler wrote nothing through a unit
    /// of work); when another request recorded the key first, that one's lookup.
    func record(scope: String, key: String, requestHash: [UInt8], reply: HTTPReply) async throws -> Lookup {
        let (now, cutoff) = (clock.now(), retentionCutoff)
        return try await database.write { connection in
            try Self.record(scope: scope, key: key, requestHash: requestHash, reply: reply, now: now, cutoff: cutoff, on: connection)
        }
    }

    /// Frees a key recorded for `requestHash`: its reply turned out to be one that must not be
    /// kept (``HTTPReply/noStore``), so a retry runs the request again.
    func release(scope: String, key: String, requestHash: [UInt8]) async throws {
        _ = try await database.write { connection in
            try connection.execute(
                "DELETE FROM hub_idempotency_keys WHERE scope = \(scope) AND key = \(key) AND request_hash = \(requestHash)"
            )
        }
    }

    /// Deletes keys older than the retention period; returns how many.
    func expire() async throws -> Int {
        let cutoff = retentionCutoff
        return try await database.write { connection in
            try connection.execute("DELETE FROM hub_idempotency_keys WHERE created_at < \(cutoff)")
        }
    }

    private var retentionCutoff: LedgerTimestamp {
        LedgerTimestamp(nanoseconds: clock.now().nanoseconds &- min(clock.now().nanoseconds, configuration.retention.nanoseconds))
    }

    // MARK: Statements

    static func lookup(scope: String, key: String, requestHash: [UInt8], cutoff: LedgerTimestamp, on connection: any SQLConnection) throws
        -> Lookup
    {
        try lookup(try connection.queryFirst(lookupStatement(scope: scope, key: key, cutoff: cutoff)), requestHash: requestHash)
    }

    /// The key's live row. Rows from before keys were written complete (`state` 'running') count
    /// as free.
    private static func lookupStatement(scope: String, key: String, cutoff: LedgerTimestamp) -> SQL {
        """
        SELECT request_hash, status, content_type, location, body FROM hub_idempotency_keys \
        WHERE scope = \(scope) AND key = \(key) AND state = 'done' AND created_at >= \(cutoff)
        """
    }

    private static func lookup(_ row: SQLRow?, requestHash: [UInt8]) throws -> Lookup {
        guard let row else { return .fresh }
        guard try row.bytes("request_hash") == requestHash else { return .mismatch }
        return .replay(
            HTTPReply(
                status: Int(try row.int("status")),
                contentType: try row.optionalText("content_type"),
                location: try row.optionalText("location"),
                body: try row.optionalBytes("body") ?? []
            )
        )
    }

    /// Inserts the key with its reply; replaces an expired (or incomplete) row. Returns `.fresh`
    /// when recorded, otherwise what the key already holds: on PostgreSQL an insert racing another
    /// instance's waits for it to commit, then sees its row.
    static func record(
        scope: String,
        key: String,
        requestHash: [UInt8],
        reply: HTTPReply,
        now: LedgerTimestamp,
        cutoff: LedgerTimestamp,
        on connection: any SQLConnection
    ) throws -> Lookup {
        let answer = Answer(scope: scope, key: key, requestHash: requestHash, reply: reply)
        let inserted = try connection.execute(upsert(CollectionOfOne(answer), now: now, cutoff: cutoff))
        if inserted > 0 { return .fresh }
        let existing = try lookup(scope: scope, key: key, requestHash: requestHash, cutoff: cutoff, on: connection)
        // A row that is neither fresh nor replaceable was just written by a concurrent request.
        return existing == .fresh ? .mismatch : existing
    }

    /// A key and the reply to record with it.
    struct Answer: Sendable {
        let scope: String
        let key: String
        let requestHash: [UInt8]
        let reply: HTTPReply
    }

    /// Records `answers` (distinct keys) as ``record(scope:key:requestHash:reply:now:cutoff:on:)``
    /// would one by one and returns how many were recorded: fewer when another request holds
    /// some key, which is left as it is. On PostgreSQL the rows go in power-of-two chunks of
    /// multi-row statements, in one round trip; SQLite, where a statement costs no round trip,
    /// reuses the single-row one.
    static func recordAll(_ answers: [Answer], now: LedgerTimestamp, cutoff: LedgerTimestamp, on connection: any SQLConnection) throws -> Int {
        if connection.dialect == .sqlite {
            return try answers.reduce(0) { recorded, answer in
                recorded + (try connection.execute(upsert(CollectionOfOne(answer), now: now, cutoff: cutoff)) > 0 ? 1 : 0)
            }
        }
        let statements = powerOfTwoChunks(answers.count, maxChunk: 256).map { chunk in
            upsert(answers[chunk], now: now, cutoff: cutoff) + " RETURNING key"
        }
        return try connection.queries(statements).reduce(0) { $0 + $1.count }
    }

    /// Inserts each answer's key with its reply, replacing an expired (or incomplete) row and
    /// leaving a live one as it is: the one statement both ways of recording use.
    private static func upsert(_ answers: some Collection<Answer>, now: LedgerTimestamp, cutoff: LedgerTimestamp) -> SQL {
        var sql: SQL =
            "INSERT INTO hub_idempotency_keys (scope, key, request_hash, state, status, content_type, location, body, created_at, locked_until) VALUES "
        for (position, a) in answers.enumerated() {
            if position > 0 { sql += ", " }
            sql +=
                "(\(a.scope), \(a.key), \(a.requestHash), 'done', \(a.reply.status), \(a.reply.contentType), \(a.reply.location), \(a.reply.body), \(now), \(now))"
        }
        return sql
            + """
             ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'done', status = excluded.status, \
            content_type = excluded.content_type, location = excluded.location, body = excluded.body, created_at = excluded.created_at, \
            locked_until = excluded.locked_until \
            WHERE hub_idempotency_keys.created_at < \(cutoff) OR hub_idempotency_keys.state <> 'done'
            """
    }
}

extension Duration {
    /// Whole nanoseconds, saturating (retention periods are days, far from overflow).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
