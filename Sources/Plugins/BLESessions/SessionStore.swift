import HubKernel

/// The rail's reads and writes on its own tables. Every function runs on a connection inside a
/// transaction the caller opened, so rows, their events and any ledger transfer commit together.
enum SessionStore {
    // MARK: Sessions

    static func insert(_ session: PaymentSession, on connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO ble_sessions_sessions (\(sessionColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            values(session)
        )
    }

    static func update(_ session: PaymentSession, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            UPDATE ble_sessions_sessions SET paid_shares = $1, held_shares = $2, status = $3, eid = $4, eid_issued_at = $5, ended_at = $6
            WHERE id = $7
            """,
            [
                .int(Int64(session.paidShares)), .int(Int64(session.heldShares)), .text(session.status.rawValue),
                .text(session.eid.description), sql(session.eidIssuedAt), .optional(session.endedAt.map(sql)), .text(session.id),
            ]
        )
    }

    static func session(_ id: String, forUpdate: Bool = false, on connection: any SQLConnection) throws -> PaymentSession? {
        try connection.queryFirst(
            "SELECT \(sessionColumns) FROM ble_sessions_sessions WHERE id = $1" + (forUpdate ? connection.dialect.forUpdate : ""),
            [.text(id)]
        ).map(session(from:))
    }

    /// Sessions after the cursor `afterSeq`, oldest first, with each one's `seq` for the next cursor.
    static func sessions(payee: UserID?, status: PaymentSession.Status?, afterSeq: Int64, limit: Int, on connection: any SQLConnection)
        throws -> [(seq: Int64, session: PaymentSession)]
    {
        var text = "SELECT \(sessionColumns), seq FROM ble_sessions_sessions WHERE seq > $1"
        var binds: [SQLValue] = [.int(afterSeq)]
        if let payee {
            binds.append(.text(payee.description))
            text += " AND payee_id = $\(binds.count)"
        }
        if let status {
            binds.append(.text(status.rawValue))
            text += " AND status = $\(binds.count)"
        }
        binds.append(.int(Int64(limit)))
        text += " ORDER BY seq LIMIT $\(binds.count)"
        return try connection.query(text, binds).map { row in (seq: try row.int(16), session: try session(from: row)) }
    }

    /// Open sessions whose time is up, oldest deadline first, locked for the caller's update.
    static func dueSessions(now: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [PaymentSession] {
        try openSessions(where: "expires_at", atOrBefore: now, limit: limit, on: connection)
    }

    /// Open sessions whose EID was issued at or before `issuedBefore`.
    static func rotationDue(issuedBefore: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [PaymentSession] {
        try openSessions(where: "eid_issued_at", atOrBefore: issuedBefore, limit: limit, on: connection)
    }

    /// Sessions not yet ended whose `column` time is at or before `time`, earliest first, locked.
    private static func openSessions(where column: String, atOrBefore time: LedgerTimestamp, limit: Int, on connection: any SQLConnection)
        throws -> [PaymentSession]
    {
        try connection.query(
            """
            SELECT \(sessionColumns) FROM ble_sessions_sessions
            WHERE status IN ('advertising', 'locked', 'partially_paid') AND \(column) <= $1 ORDER BY \(column) LIMIT $2
            """ + connection.dialect.forUpdate,
            [sql(time), .int(Int64(limit))]
        ).map(session(from:))
    }

    // MARK: EIDs

    /// Records `eid` for the session. Returns `false` when the EID already named some session (40
    /// random bits rarely collide, but a collision must never point two sessions at one EID).
    static func insertEID(_ eid: EphemeralID, session: String, at time: LedgerTimestamp, on connection: any SQLConnection) throws -> Bool {
        if try connection.queryFirst("SELECT 1 FROM ble_sessions_eids WHERE eid = $1", [.text(eid.description)]) != nil { return false }
        try connection.execute(
            "INSERT INTO ble_sessions_eids (eid, session_id, issued_at, valid_until) VALUES ($1, $2, $3, NULL)",
            [.text(eid.description), .text(session), sql(time)]
        )
        return true
    }

    static func retireEID(_ eid: EphemeralID, validUntil: LedgerTimestamp, on connection: any SQLConnection) throws {
        try connection.execute("UPDATE ble_sessions_eids SET valid_until = $1 WHERE eid = $2", [sql(validUntil), .text(eid.description)])
    }

    /// The session `eid` names and, for a replaced EID, until when it still resolves.
    static func lookup(_ eid: EphemeralID, on connection: any SQLConnection) throws -> (session: PaymentSession, validUntil: LedgerTimestamp?)? {
        guard
            let row = try connection.queryFirst(
                "SELECT session_id, valid_until FROM ble_sessions_eids WHERE eid = $1",
                [.text(eid.description)]
            ),
            let session = try session(try row.text(0), on: connection)
        else { return nil }
        return (session, try row.optionalInt(1).map(timestamp))
    }

    // MARK: Locks

    static func insert(_ lock: SessionLock, on connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO ble_sessions_locks (\(lockColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            [
                .text(lock.id), .text(lock.sessionID), .int(Int64(lock.share)), .text(lock.payerID.description),
                .text(lock.payerAccountID.description), .uint128(lock.amount), .text(lock.holdID.description), .text(lock.state.rawValue),
                sql(lock.lockedAt), sql(lock.expiresAt), .optional(lock.resolvedAt.map(sql)), .optional(lock.paymentID.map { .text($0.description) }),
            ]
        )
    }

    static func update(_ lock: SessionLock, on connection: any SQLConnection) throws {
        try connection.execute(
            "UPDATE ble_sessions_locks SET state = $1, resolved_at = $2, payment_id = $3 WHERE id = $4",
            [
                .text(lock.state.rawValue), .optional(lock.resolvedAt.map(sql)), .optional(lock.paymentID.map { .text($0.description) }),
                .text(lock.id),
            ]
        )
    }

    /// The session's locks, oldest first (all, or those in `state`).
    static func locks(session: String, state: SessionLock.State? = nil, on connection: any SQLConnection) throws -> [SessionLock] {
        var text = "SELECT \(lockColumns) FROM ble_sessions_locks WHERE session_id = $1"
        var binds: [SQLValue] = [.text(session)]
        if let state {
            binds.append(.text(state.rawValue))
            text += " AND state = $2"
        }
        return try connection.query(text + " ORDER BY locked_at, id", binds).map(lock(from:))
    }

    /// Held locks whose time is up.
    static func dueLocks(now: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [SessionLock] {
        try connection.query(
            "SELECT \(lockColumns) FROM ble_sessions_locks WHERE state = 'held' AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
            [sql(now), .int(Int64(limit))]
        ).map(lock(from:))
    }

    // MARK: Rows

    private static let sessionColumns =
        "id, payee_id, payee_account_id, payee_display_name, asset, amount, split_mode, shares, paid_shares, held_shares, status, eid, eid_issued_at, created_at, expires_at, ended_at"
    private static let lockColumns =
        "id, session_id, share, payer_id, payer_account_id, amount, hold_id, state, locked_at, expires_at, resolved_at, payment_id"

    private static func values(_ s: PaymentSession) -> [SQLValue] {
        [
            .text(s.id), .text(s.payeeID.description), .text(s.payeeAccountID.description), .text(s.payeeDisplayName), .text(s.asset.rawValue),
            .uint128(s.amount), .text(s.splitMode.rawValue), .int(Int64(s.shares)), .int(Int64(s.paidShares)), .int(Int64(s.heldShares)),
            .text(s.status.rawValue), .text(s.eid.description), sql(s.eidIssuedAt), sql(s.createdAt), sql(s.expiresAt),
            .optional(s.endedAt.map(sql)),
        ]
    }

    private static func session(from row: SQLRow) throws -> PaymentSession {
        PaymentSession(
            id: try row.text(0),
            payeeID: try parse(UserID.init, try row.text(1)),
            payeeAccountID: try parse(AccountID.init, try row.text(2)),
            payeeDisplayName: try row.text(3),
            asset: try parse(AssetCode.init, try row.text(4)),
            amount: try row.uint128(5),
            splitMode: try parse(PaymentSession.SplitMode.init(rawValue:), try row.text(6)),
            shares: Int(try row.int(7)),
            paidShares: Int(try row.int(8)),
            heldShares: Int(try row.int(9)),
            status: try parse(PaymentSession.Status.init(rawValue:), try row.text(10)),
            eid: try parse(EphemeralID.init(hex:), try row.text(11)),
            eidIssuedAt: timestamp(try row.int(12)),
            createdAt: timestamp(try row.int(13)),
            expiresAt: timestamp(try row.int(14)),
            endedAt: try row.optionalInt(15).map(timestamp)
        )
    }

    private static func lock(from row: SQLRow) throws -> SessionLock {
        SessionLock(
            id: try row.text(0),
            sessionID: try row.text(1),
            share: Int(try row.int(2)),
            payerID: try parse(UserID.init, try row.text(3)),
            payerAccountID: try parse(AccountID.init, try row.text(4)),
            amount: try row.uint128(5),
            holdID: try parse(TransferID.init, try row.text(6)),
            state: try parse(SessionLock.State.init(rawValue:), try row.text(7)),
            lockedAt: timestamp(try row.int(8)),
            expiresAt: timestamp(try row.int(9)),
            resolvedAt: try row.optionalInt(10).map(timestamp),
            paymentID: try row.optionalText(11).map { try parse(TransferID.init, $0) }
        )
    }

    private static func parse<Value>(_ make: (String) -> Value?, _ text: String) throws -> Value {
        guard let value = make(text) else { throw DatabaseError(.decode, "unreadable value '\(text)' in a ble-sessions table") }
        return value
    }

    static func sql(_ time: LedgerTimestamp) -> SQLValue { .int(Int64(bitPattern: time.nanoseconds)) }
    static func timestamp(_ value: Int64) -> LedgerTimestamp { LedgerTimestamp(nanoseconds: UInt64(bitPattern: value)) }
}
