import HubKernel

/// The rail's reads and writes on its own tables. Every function runs on a connection inside a
/// transaction the caller opened, so rows, their events and any ledger transfer commit together.
///
/// These tables keep user, account and transfer ids in their text form: bind `id.description`,
/// never the id itself, which binds as the ledger's 16 bytes and would match no row.
///
/// Writes whose outcome nobody reads are deferred (`executeDeferred`): on PostgreSQL they travel
/// with the unit's next statement instead of costing a round trip each, and an error they cause
/// still fails their own unit (it surfaces at the latest when the unit's savepoint is released).
enum SessionStore {
    // MARK: Sessions

    private static func insert(_ session: PaymentSession, on connection: any SQLConnection) throws {
        try connection.executeDeferred("INSERT INTO ble_sessions_sessions (\(sessionColumns)) VALUES " + sessionValues(session))
    }

    /// Inserts `sessions`, many to a statement on PostgreSQL (``writeMany``).
    static func insert(_ sessions: [PaymentSession], on connection: any SQLConnection) throws {
        try writeMany(
            sessions,
            alone: { try insert($0, on: connection) },
            head: "INSERT INTO ble_sessions_sessions (\(sessionColumns)) VALUES ",
            tuple: sessionValues,
            on: connection
        )
    }

    /// A session's row as a `VALUES` tuple, in the order of `sessionColumns`.
    private static func sessionValues(_ s: PaymentSession) -> SQL {
        """
        (\(s.id), \(s.payeeID.description), \(s.payeeAccountID.description), \(s.payeeDisplayName), \(s.asset), \(s.amount), \
        \(s.splitMode.rawValue), \(s.shares), \(s.paidShares), \(s.heldShares), \(s.status.rawValue), \(s.eid.description), \(s.eidIssuedAt), \
        \(s.createdAt), \(s.expiresAt), \(s.endedAt))
        """
    }

    static func update(_ session: PaymentSession, on connection: any SQLConnection) throws {
        try connection.executeDeferred(
            """
            UPDATE ble_sessions_sessions SET paid_shares = \(session.paidShares), held_shares = \(session.heldShares), \
            status = \(session.status.rawValue), eid = \(session.eid.description), eid_issued_at = \(session.eidIssuedAt), \
            ended_at = \(session.endedAt) WHERE id = \(session.id)
            """
        )
    }

    /// Writes each session's state as ``update(_:on:)-(PaymentSession,_)`` would, many to a
    /// statement on PostgreSQL (``writeMany``).
    static func update(_ sessions: [PaymentSession], on connection: any SQLConnection) throws {
        try writeMany(
            sessions,
            alone: { try update($0, on: connection) },
            head: "UPDATE ble_sessions_sessions AS s SET paid_shares = v.paid_shares, held_shares = v.held_shares, status = v.status, "
                + "eid = v.eid, eid_issued_at = v.eid_issued_at, ended_at = v.ended_at FROM (VALUES ",
            tuple: { s in
                """
                (\(s.id)::text, \(s.paidShares)::bigint, \(s.heldShares)::bigint, \(s.status.rawValue)::text, \(s.eid.description)::text, \
                \(s.eidIssuedAt)::bigint, \(s.endedAt)::bigint)
                """
            },
            tail: ") AS v (id, paid_shares, held_shares, status, eid, eid_issued_at, ended_at) WHERE s.id = v.id",
            on: connection
        )
    }

    static func session(_ id: String, forUpdate: Bool = false, on connection: any SQLConnection) throws -> PaymentSession? {
        let lock: SQL = forUpdate ? .forUpdate(connection.dialect) : ""
        return try connection.queryFirst(selectSessions + " WHERE id = \(id)" + lock).map(session(from:))
    }

    /// The sessions `ids` name that exist, row-locked until the commit on PostgreSQL (in id
    /// order, so that two instances lock them in one order), each with its locks oldest first:
    /// what a batch of steps on sessions reads first, in one round trip.
    static func sessionsForUpdateWithLocks(_ ids: Set<String>, on connection: any SQLConnection) throws -> [String: SessionWithLocks] {
        let keys = ids.sorted()
        let sessionReads = connection.selectInStatements(
            selectSessions + " WHERE id",
            keys: keys,
            suffix: " ORDER BY id" + .forUpdate(connection.dialect)
        )
        let lockReads = connection.selectInStatements(selectLocks + " WHERE session_id", keys: keys, suffix: " ORDER BY locked_at, id")
        let results = try connection.queries(sessionReads + lockReads)
        var found: [String: SessionWithLocks] = [:]
        for row in results.prefix(sessionReads.count).joined() {
            let session = try session(from: row)
            found[session.id] = SessionWithLocks(session: session, locks: [])
        }
        for row in results.dropFirst(sessionReads.count).joined() {
            let lock = try lock(from: row)
            found[lock.sessionID]?.locks.append(lock)
        }
        return found
    }

    /// Sessions after the cursor `afterSeq`, oldest first, with each one's `seq` for the next cursor.
    static func sessions(payee: UserID?, status: PaymentSession.Status?, afterSeq: Int64, limit: Int, on connection: any SQLConnection)
        throws -> [(seq: Int64, session: PaymentSession)]
    {
        var sql: SQL = "SELECT \(sessionColumns), seq FROM ble_sessions_sessions WHERE seq > \(afterSeq)"
        if let payee { sql += " AND payee_id = \(payee.description)" }
        if let status { sql += " AND status = \(status.rawValue)" }
        sql += " ORDER BY seq LIMIT \(limit)"
        return try connection.query(sql).map { row in (seq: try row.int("seq"), session: try session(from: row)) }
    }

    /// Open sessions whose time is up, oldest deadline first, locked for the caller's update.
    static func dueSessions(now: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [PaymentSession] {
        try openSessions(where: "expires_at", atOrBefore: now, limit: limit, on: connection)
    }

    /// Open sessions whose EID was issued at or before `issuedBefore`.
    static func rotationDue(issuedBefore: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [PaymentSession] {
        try openSessions(where: "eid_issued_at", atOrBefore: issuedBefore, limit: limit, on: connection)
    }

    /// Sessions not yet ended (every final status sets `ended_at`; the partial index of live
    /// sessions has the same condition) whose `column` time is at or before `time`, earliest
    /// first, locked. `column` is statement text (a column name), never a value.
    private static func openSessions(where column: SQL, atOrBefore time: LedgerTimestamp, limit: Int, on connection: any SQLConnection)
        throws -> [PaymentSession]
    {
        try connection.query(
            selectSessions + " WHERE ended_at IS NULL AND \(column) <= \(time) ORDER BY \(column) LIMIT \(limit)"
                + .forUpdate(connection.dialect)
        ).map(session(from:))
    }

    // MARK: EIDs

    /// Records `eid` for the session. Returns `false` when the EID already named some session (40
    /// random bits rarely collide, but a collision must never point two sessions at one EID).
    /// One statement: `DO NOTHING` keeps a collision from failing the transaction on PostgreSQL.
    static func insertEID(_ eid: EphemeralID, session: String, at time: LedgerTimestamp, on connection: any SQLConnection) throws -> Bool {
        try connection.execute(
            """
            INSERT INTO ble_sessions_eids (eid, session_id, issued_at, valid_until) VALUES (\(eid.description), \(session), \(time), NULL) \
            ON CONFLICT (eid) DO NOTHING
            """
        ) == 1
    }

    /// Records each `(eid, session)` pair whose EID is free and returns which session each
    /// recorded EID now names: a pair missing from the answer, or whose EID names another session
    /// (two of one batch drew the same), was not recorded. On PostgreSQL the rows go in
    /// power-of-two chunks of multi-row statements, in one round trip; SQLite, where a statement
    /// costs no round trip, reuses the prepared single-row one.
    static func insertEIDs(_ pairs: [(eid: EphemeralID, session: String)], at time: LedgerTimestamp, on connection: any SQLConnection) throws
        -> [EphemeralID: String]
    {
        var recorded: [EphemeralID: String] = [:]
        if connection.dialect == .sqlite {
            for pair in pairs where recorded[pair.eid] == nil {
                if try insertEID(pair.eid, session: pair.session, at: time, on: connection) { recorded[pair.eid] = pair.session }
            }
            return recorded
        }
        let statements = powerOfTwoChunks(pairs.count, maxChunk: 256).map { chunk in
            var sql: SQL = "INSERT INTO ble_sessions_eids (eid, session_id, issued_at, valid_until) VALUES "
            for (position, pair) in pairs[chunk].enumerated() {
                sql += position == 0 ? "" : ", "
                sql += "(\(pair.eid.description), \(pair.session), \(time), NULL)"
            }
            return sql + " ON CONFLICT (eid) DO NOTHING RETURNING eid, session_id"
        }
        for row in try connection.queries(statements).joined() {
            recorded[try parse(EphemeralID.init(hex:), try row.text("eid"))] = try row.text("session_id")
        }
        return recorded
    }

    static func retireEID(_ eid: EphemeralID, validUntil: LedgerTimestamp, on connection: any SQLConnection) throws {
        try connection.executeDeferred("UPDATE ble_sessions_eids SET valid_until = \(validUntil) WHERE eid = \(eid.description)")
    }

    /// The session `eid` names and, for a replaced EID, until when it still resolves.
    static func lookup(_ eid: EphemeralID, on connection: any SQLConnection) throws -> (session: PaymentSession, validUntil: LedgerTimestamp?)? {
        guard
            let row = try connection.queryFirst("SELECT session_id, valid_until FROM ble_sessions_eids WHERE eid = \(eid.description)"),
            let session = try session(try row.text("session_id"), on: connection)
        else { return nil }
        return (session, try row.decode("valid_until"))
    }

    // MARK: Locks

    private static func insert(_ lock: SessionLock, on connection: any SQLConnection) throws {
        try connection.executeDeferred("INSERT INTO ble_sessions_locks (\(lockColumns)) VALUES " + lockValues(lock))
    }

    /// A lock's row as a `VALUES` tuple, in the order of `lockColumns`.
    private static func lockValues(_ lock: SessionLock) -> SQL {
        """
        (\(lock.id), \(lock.sessionID), \(lock.share), \(lock.payerID.description), \(lock.payerAccountID.description), \(lock.amount), \
        \(lock.holdID.description), \(lock.state.rawValue), \(lock.lockedAt), \(lock.expiresAt), \(lock.resolvedAt), \(lock.paymentID?.description))
        """
    }

    /// Inserts `locks`, many to a statement on PostgreSQL (``writeMany``).
    static func insert(_ locks: [SessionLock], on connection: any SQLConnection) throws {
        try writeMany(
            locks,
            alone: { try insert($0, on: connection) },
            head: "INSERT INTO ble_sessions_locks (\(lockColumns)) VALUES ",
            tuple: lockValues,
            on: connection
        )
    }

    /// Writes each lock's outcome as ``update(_:on:)-(SessionLock,_)`` would, many to a
    /// statement on PostgreSQL (``writeMany``).
    static func update(_ locks: [SessionLock], on connection: any SQLConnection) throws {
        try writeMany(
            locks,
            alone: { try update($0, on: connection) },
            head: "UPDATE ble_sessions_locks AS l SET state = v.state, resolved_at = v.resolved_at, payment_id = v.payment_id FROM (VALUES ",
            tuple: { lock in
                "(\(lock.id)::text, \(lock.state.rawValue)::text, \(lock.resolvedAt)::bigint, \(lock.paymentID?.description)::text)"
            },
            tail: ") AS v (id, state, resolved_at, payment_id) WHERE l.id = v.id",
            on: connection
        )
    }

    static func update(_ lock: SessionLock, on connection: any SQLConnection) throws {
        try connection.executeDeferred(
            """
            UPDATE ble_sessions_locks SET state = \(lock.state.rawValue), resolved_at = \(lock.resolvedAt), \
            payment_id = \(lock.paymentID?.description) WHERE id = \(lock.id)
            """
        )
    }

    /// The session's locks, oldest first (all, or those in `state`).
    static func locks(session: String, state: SessionLock.State? = nil, on connection: any SQLConnection) throws -> [SessionLock] {
        var sql = selectLocks + " WHERE session_id = \(session)"
        if let state { sql += " AND state = \(state.rawValue)" }
        return try connection.query(sql + " ORDER BY locked_at, id").map(lock(from:))
    }

    /// Held locks whose time is up.
    static func dueLocks(now: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [SessionLock] {
        try connection.query(selectLocks + " WHERE state = 'held' AND expires_at <= \(now) ORDER BY expires_at LIMIT \(limit)").map(lock(from:))
    }

    // MARK: Rows

    /// Writes `rows` as `alone` would one by one. On PostgreSQL `head`, the rows' `VALUES`
    /// tuples and `tail` make one statement for many rows, in power-of-two chunks (a few
    /// statement shapes for the prepared-statement cache): the server then starts a statement and
    /// sets up its table's constraints once, not once a row. SQLite, where a statement costs no
    /// round trip, runs the prepared single-row statement for each.
    private static func writeMany<Row>(
        _ rows: [Row],
        alone: (Row) throws -> Void,
        head: SQL,
        tuple: (Row) -> SQL,
        tail: SQL = "",
        on connection: any SQLConnection
    ) throws {
        if connection.dialect == .sqlite {
            for row in rows { try alone(row) }
            return
        }
        for chunk in powerOfTwoChunks(rows.count, maxChunk: 256) {
            var sql = head
            for (position, row) in rows[chunk].enumerated() {
                sql += position == 0 ? "" : ", "
                sql += tuple(row)
            }
            try connection.executeDeferred(sql + tail)
        }
    }

    private static let sessionColumns: SQL =
        "id, payee_id, payee_account_id, payee_display_name, asset, amount, split_mode, shares, paid_shares, held_shares, status, eid, eid_issued_at, created_at, expires_at, ended_at"
    private static let lockColumns: SQL =
        "id, session_id, share, payer_id, payer_account_id, amount, hold_id, state, locked_at, expires_at, resolved_at, payment_id"
    private static let selectSessions: SQL = "SELECT \(sessionColumns) FROM ble_sessions_sessions"
    private static let selectLocks: SQL = "SELECT \(lockColumns) FROM ble_sessions_locks"

    private static func session(from row: SQLRow) throws -> PaymentSession {
        PaymentSession(
            id: try row.text("id"),
            payeeID: try parse(UserID.init, try row.text("payee_id")),
            payeeAccountID: try parse(AccountID.init, try row.text("payee_account_id")),
            payeeDisplayName: try row.text("payee_display_name"),
            asset: try parse(AssetCode.init, try row.text("asset")),
            amount: try row.uint128("amount"),
            splitMode: try parse(PaymentSession.SplitMode.init(rawValue:), try row.text("split_mode")),
            shares: try row.decode("shares"),
            paidShares: try row.decode("paid_shares"),
            heldShares: try row.decode("held_shares"),
            status: try parse(PaymentSession.Status.init(rawValue:), try row.text("status")),
            eid: try parse(EphemeralID.init(hex:), try row.text("eid")),
            eidIssuedAt: try row.decode("eid_issued_at"),
            createdAt: try row.decode("created_at"),
            expiresAt: try row.decode("expires_at"),
            endedAt: try row.decode("ended_at")
        )
    }

    private static func lock(from row: SQLRow) throws -> SessionLock {
        SessionLock(
            id: try row.text("id"),
            sessionID: try row.text("session_id"),
            share: try row.decode("share"),
            payerID: try parse(UserID.init, try row.text("payer_id")),
            payerAccountID: try parse(AccountID.init, try row.text("payer_account_id")),
            amount: try row.uint128("amount"),
            holdID: try parse(TransferID.init, try row.text("hold_id")),
            state: try parse(SessionLock.State.init(rawValue:), try row.text("state")),
            lockedAt: try row.decode("locked_at"),
            expiresAt: try row.decode("expires_at"),
            resolvedAt: try row.decode("resolved_at"),
            paymentID: try row.optionalText("payment_id").map { try parse(TransferID.init, $0) }
        )
    }

    private static func parse<Value>(_ make: (String) -> Value?, _ text: String) throws -> Value {
        guard let value = make(text) else { throw DatabaseError(.decode, "unreadable value '\(text)' in a ble-sessions table") }
        return value
    }

}
