import HubKernel

/// The tip jar's reads and writes on its own tables. Every function takes a connection inside a
/// transaction the caller opened (`database.read {}` or `database.write {}`), so a write and the
/// events that describe it commit together or not at all.
enum TipJarStore {
    /// The plugin's tables; each starts with `PluginContext.tablePrefix` (`tip_jar_`).
    static let jars = "tip_jar_jars"
    static let tips = "tip_jar_tips"
    static let tables = [jars, tips]

    /// The outcome of counting a ledger transfer into a jar.
    enum TipOutcome: Sendable {
        /// Counted now: the total grew and `tipjar.jar.tipped` was appended.
        case recorded(TipRecord, TipJar)
        /// Counted before (a retry): nothing changed.
        case alreadyRecorded(TipRecord, TipJar)
    }

    // MARK: Writes (each appends its events in the same transaction)

    /// Inserts a new jar and appends `tipjar.jar.opened`.
    static func open(_ jar: TipJar, source: String, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO tip_jar_jars (id, asset, payee_account_id, title, opened_by, status, total, tip_count, created_at, closes_at, closed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [
                .text(jar.id), .text(jar.asset.rawValue), .text(jar.payeeAccountID.description), .text(jar.title),
                .text(jar.openedBy), .text(jar.status.rawValue), .uint128(jar.total), .int(jar.tipCount),
                sql(jar.createdAt), .optional(jar.closesAt.map(sql)), .optional(jar.closedAt.map(sql)),
            ]
        )
        try EventLog.append([TipJarEvents.opened(jar, source: source)], on: connection)
    }

    /// Counts `transfer` (already recorded by the ledger) into its jar, once.
    ///
    /// The jar row is locked first (PostgreSQL; SQLite's write transaction excludes other writers
    /// anyway), then the tip is looked up by transfer id: two processes recording the same retry
    /// serialise on the lock and the second finds the first's row. A closed jar still counts a
    /// transfer that reached the ledger: the money has moved, and the total must say so.
    static func record(_ transfer: Transfer, jarID: String, at time: LedgerTimestamp, source: String, on connection: any SQLConnection) throws
        -> TipOutcome
    {
        guard var jar = try jar(jarID, forUpdate: true, on: connection) else {
            throw DatabaseError(.query, "tip jar \(jarID) vanished while recording transfer \(transfer.id)")
        }
        if let existing = try tip(transfer.id, on: connection) {
            return .alreadyRecorded(existing, jar)
        }
        guard transfer.reference == jar.reference, transfer.creditAccountID == jar.payeeAccountID else {
            throw DatabaseError(.query, "transfer \(transfer.id) is not a tip into jar \(jarID)")
        }
        // Cannot overflow in practice (every tip is also a credit on the payee's UInt128 balance),
        // but a wrapped total would be a silent lie, so check.
        let (total, overflow) = jar.total.addingReportingOverflow(transfer.amount)
        guard !overflow else { throw DatabaseError(.query, "tip jar \(jarID) total overflows") }
        jar.total = total
        jar.tipCount += 1
        let tip = TipRecord(
            transferID: transfer.id,
            jarID: jarID,
            fromAccountID: transfer.debitAccountID,
            amount: transfer.amount,
            tippedAt: time
        )
        try connection.execute(
            "UPDATE tip_jar_jars SET total = $1, tip_count = $2 WHERE id = $3",
            [.uint128(jar.total), .int(jar.tipCount), .text(jar.id)]
        )
        try connection.execute(
            "INSERT INTO tip_jar_tips (transfer_id, jar_id, from_account_id, amount, tipped_at) VALUES ($1, $2, $3, $4, $5)",
            [.text(tip.transferID.description), .text(jarID), .text(tip.fromAccountID.description), .uint128(tip.amount), sql(time)]
        )
        try EventLog.append([TipJarEvents.tipped(jar, tip: tip, source: source)], on: connection)
        return .recorded(tip, jar)
    }

    /// Closes up to `limit` open jars whose `closes_at` is at or before `now`, appending
    /// `tipjar.jar.closed` for each, and returns them.
    static func closeDue(now: LedgerTimestamp, limit: Int, source: String, on connection: any SQLConnection) throws -> [TipJar] {
        let due = try connection.query(
            "SELECT \(columns) FROM tip_jar_jars WHERE status = 'open' AND closes_at <= $1 ORDER BY closes_at, seq LIMIT $2"
                + connection.dialect.forUpdate,
            [sql(now), .int(Int64(limit))]
        ).map(jar(from:))
        var closed: [TipJar] = []
        for var jar in due {
            jar.status = .closed
            jar.closedAt = now
            try connection.execute(
                "UPDATE tip_jar_jars SET status = 'closed', closed_at = $1 WHERE id = $2",
                [sql(now), .text(jar.id)]
            )
            closed.append(jar)
        }
        try EventLog.append(closed.map { try TipJarEvents.closed($0, source: source) }, on: connection)
        return closed
    }

    // MARK: Reads

    static func jar(_ id: String, forUpdate: Bool = false, on connection: any SQLConnection) throws -> TipJar? {
        try connection.queryFirst(
            "SELECT \(columns) FROM tip_jar_jars WHERE id = $1" + (forUpdate ? connection.dialect.forUpdate : ""),
            [.text(id)]
        ).map(jar(from:))
    }

    /// Jars after the cursor `afterSeq`, oldest first, with the `seq` of each for the next cursor.
    ///
    /// Placeholders are numbered in the order they appear in the text: SQLite numbers `$N`
    /// parameters by first appearance and the SQLite connection binds by position, so `$3`
    /// written before `$2` would receive the wrong value there.
    static func jars(status: TipJar.Status?, afterSeq: Int64, limit: Int, on connection: any SQLConnection) throws -> [(seq: Int64, jar: TipJar)] {
        var sql = "SELECT \(columns), seq FROM tip_jar_jars WHERE seq > $1"
        var binds: [SQLValue] = [.int(afterSeq)]
        if let status {
            binds.append(.text(status.rawValue))
            sql += " AND status = $\(binds.count)"
        }
        binds.append(.int(Int64(limit)))
        sql += " ORDER BY seq LIMIT $\(binds.count)"
        return try connection.query(sql, binds).map { row in
            (seq: try row.int(11), jar: try jar(from: row))
        }
    }

    static func tip(_ transferID: TransferID, on connection: any SQLConnection) throws -> TipRecord? {
        try connection.queryFirst(
            "SELECT transfer_id, jar_id, from_account_id, amount, tipped_at FROM tip_jar_tips WHERE transfer_id = $1",
            [.text(transferID.description)]
        ).map { row in
            TipRecord(
                transferID: try parse(TransferID.init, try row.text(0)),
                jarID: try row.text(1),
                fromAccountID: try parse(AccountID.init, try row.text(2)),
                amount: try row.uint128(3),
                tippedAt: LedgerTimestamp(nanoseconds: UInt64(bitPattern: try row.int(4)))
            )
        }
    }

    // MARK: Rows

    private static let columns = "id, asset, payee_account_id, title, opened_by, status, total, tip_count, created_at, closes_at, closed_at"

    private static func jar(from row: SQLRow) throws -> TipJar {
        TipJar(
            id: try row.text(0),
            asset: try parse(AssetCode.init, try row.text(1)),
            payeeAccountID: try parse(AccountID.init, try row.text(2)),
            title: try row.text(3),
            openedBy: try row.text(4),
            status: try parse(TipJar.Status.init(rawValue:), try row.text(5)),
            total: try row.uint128(6),
            tipCount: try row.int(7),
            createdAt: LedgerTimestamp(nanoseconds: UInt64(bitPattern: try row.int(8))),
            closesAt: try row.optionalInt(9).map { LedgerTimestamp(nanoseconds: UInt64(bitPattern: $0)) },
            closedAt: try row.optionalInt(10).map { LedgerTimestamp(nanoseconds: UInt64(bitPattern: $0)) }
        )
    }

    private static func parse<Value>(_ make: (String) -> Value?, _ text: String) throws -> Value {
        guard let value = make(text) else { throw DatabaseError(.decode, "unreadable value '\(text)' in a tip jar table") }
        return value
    }

    private static func sql(_ time: LedgerTimestamp) -> SQLValue { .int(Int64(bitPattern: time.nanoseconds)) }
}
