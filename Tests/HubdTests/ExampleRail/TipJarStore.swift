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
            VALUES (\(jar.id), \(jar.asset), \(jar.payeeAccountID.description), \(jar.title), \(jar.openedBy), \(jar.status.rawValue),
                \(jar.total), \(jar.tipCount), \(jar.createdAt), \(jar.closesAt), \(jar.closedAt))
            """
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
        try connection.execute("UPDATE tip_jar_jars SET total = \(jar.total), tip_count = \(jar.tipCount) WHERE id = \(jar.id)")
        try connection.execute(
            """
            INSERT INTO tip_jar_tips (transfer_id, jar_id, from_account_id, amount, tipped_at)
            VALUES (\(tip.transferID.description), \(jarID), \(tip.fromAccountID.description), \(tip.amount), \(time))
            """
        )
        try EventLog.append([TipJarEvents.tipped(jar, tip: tip, source: source)], on: connection)
        return .recorded(tip, jar)
    }

    /// Closes up to `limit` open jars whose `closes_at` is at or before `now`, appending
    /// `tipjar.jar.closed` for each, and returns them.
    static func closeDue(now: LedgerTimestamp, limit: Int, source: String, on connection: any SQLConnection) throws -> [TipJar] {
        let due = try connection.query(
            selectJars + " WHERE status = 'open' AND closes_at <= \(now) ORDER BY closes_at, seq LIMIT \(limit)" + .forUpdate(connection.dialect)
        ).map(jar(from:))
        var closed: [TipJar] = []
        for var jar in due {
            jar.status = .closed
            jar.closedAt = now
            try connection.execute("UPDATE tip_jar_jars SET status = 'closed', closed_at = \(now) WHERE id = \(jar.id)")
            closed.append(jar)
        }
        try EventLog.append(closed.map { try TipJarEvents.closed($0, source: source) }, on: connection)
        return closed
    }

    // MARK: Reads

    static func jar(_ id: String, forUpdate: Bool = false, on connection: any SQLConnection) throws -> TipJar? {
        let lock: SQL = forUpdate ? .forUpdate(connection.dialect) : ""
        return try connection.queryFirst(selectJars + " WHERE id = \(id)" + lock).map(jar(from:))
    }

    /// Jars after the cursor `afterSeq`, oldest first, with the `seq` of each for the next cursor.
    static func jars(status: TipJar.Status?, afterSeq: Int64, limit: Int, on connection: any SQLConnection) throws -> [(seq: Int64, jar: TipJar)] {
        var sql: SQL = "SELECT \(columns), seq FROM tip_jar_jars WHERE seq > \(afterSeq)"
        if let status { sql += " AND status = \(status.rawValue)" }
        sql += " ORDER BY seq LIMIT \(limit)"
        return try connection.query(sql).map { row in
            (seq: try row.int("seq"), jar: try jar(from: row))
        }
    }

    static func tip(_ transferID: TransferID, on connection: any SQLConnection) throws -> TipRecord? {
        try connection.queryFirst(
            "SELECT transfer_id, jar_id, from_account_id, amount, tipped_at FROM tip_jar_tips WHERE transfer_id = \(transferID.description)"
        ).map { row in
            TipRecord(
                transferID: try parse(TransferID.init, try row.text("transfer_id")),
                jarID: try row.text("jar_id"),
                fromAccountID: try parse(AccountID.init, try row.text("from_account_id")),
                amount: try row.uint128("amount"),
                tippedAt: try row.decode("tipped_at")
            )
        }
    }

    // MARK: Rows

    private static let columns: SQL = "id, asset, payee_account_id, title, opened_by, status, total, tip_count, created_at, closes_at, closed_at"
    private static let selectJars: SQL = "SELECT \(columns) FROM tip_jar_jars"

    private static func jar(from row: SQLRow) throws -> TipJar {
        TipJar(
            id: try row.text("id"),
            asset: try parse(AssetCode.init, try row.text("asset")),
            payeeAccountID: try parse(AccountID.init, try row.text("payee_account_id")),
            title: try row.text("title"),
            openedBy: try row.text("opened_by"),
            status: try parse(TipJar.Status.init(rawValue:), try row.text("status")),
            total: try row.uint128("total"),
            tipCount: try row.int("tip_count"),
            createdAt: try row.decode("created_at"),
            closesAt: try row.decode("closes_at"),
            closedAt: try row.decode("closed_at")
        )
    }

    private static func parse<Value>(_ make: (String) -> Value?, _ text: String) throws -> Value {
        guard let value = make(text) else { throw DatabaseError(.decode, "unreadable value '\(text)' in a tip jar table") }
        return value
    }
}
