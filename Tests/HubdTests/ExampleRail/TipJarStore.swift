import HubKernel

/// The tip jar's reads and writes on its own tables. Writes run inside a unit of work
/// (`context.write` / `context.respond`): the rows, any ledger transfer and the events that
/// describe them commit together or not at all. Reads take any connection (`database.read {}`, or
/// the unit's own when a write must see what it changes).
enum TipJarStore {
    /// The plugin's tables; each starts with `PluginContext.tablePrefix` (`tip_jar_`).
    static let jars = "tip_jar_jars"
    static let tips = "tip_jar_tips"
    static let tables = [jars, tips]

    /// The outcome of a tip.
    enum TipOutcome: Sendable {
        /// Counted now: the money moved, the total grew and `tipjar.jar.tipped` was appended.
        case recorded(TipRecord, TipJar)
        /// Counted before (a retry with the same transfer id): nothing changed.
        case alreadyRecorded(TipRecord, TipJar)
    }

    // MARK: Writes (each in the caller's unit of work, with its events)

    /// Inserts a new jar and appends `tipjar.jar.opened`.
    static func open(_ jar: TipJar, on unit: UnitOfWork) throws {
        try unit.connection.execute(
            """
            INSERT INTO tip_jar_jars (id, asset, payee_account_id, title, opened_by, status, total, tip_count, created_at, closes_at, closed_at)
            VALUES (\(jar.id), \(jar.asset), \(jar.payeeAccountID.description), \(jar.title), \(jar.openedBy), \(jar.status.rawValue),
                \(jar.total), \(jar.tipCount), \(jar.createdAt), \(jar.closesAt), \(jar.closedAt))
            """
        )
        try unit.emit(TipJarEvents.jarOpened, subject: jar.id, data: JarRepresentation(jar))
    }

    /// Moves a tip's money and counts it into its jar, in one unit: the transfer, the jar's new
    /// total, the tip's row and `tipjar.jar.tipped` commit together or not at all, so the total
    /// always equals the jar's transfers in the ledger.
    ///
    /// The jar row is locked first (PostgreSQL; SQLite's write transaction excludes other writers
    /// anyway), so two tips into one jar count one after the other. The transfer goes first: the
    /// ledger answers a retry with `exists` (and the same id with other fields with its error),
    /// and a retry finds the first's row and changes nothing. A closed jar takes no new tip:
    /// throwing after the transfer was created rolls it back with the rest of the unit.
    static func tip(_ transfer: TransferRequest, jarID: String, on unit: UnitOfWork) throws -> TipOutcome {
        guard var jar = try jar(jarID, forUpdate: true, on: unit.connection) else { throw TipJarError.jarNotFound }
        let moved: Transfer
        switch try unit.submit(transfer) {
        case .created(let recorded):
            guard jar.status == .open else { throw TipJarError.jarClosed }
            moved = recorded
        case .exists(let recorded):
            if let counted = try tip(recorded.id, on: unit.connection) { return .alreadyRecorded(counted, jar) }
            // In the ledger but never counted: only a tip taken before tips were one unit (two
            // steps, interrupted between them) leaves this. The money moved, so it counts, even
            // into a jar closed since.
            moved = recorded
        case .failed(let error):
            // Refused (insufficient funds, the id reused for another transfer…): the kernel
            // answers the ledger's code; the unit, and so the whole tip, rolls back.
            throw error
        }
        // Cannot overflow in practice (every tip is also a credit on the payee's UInt128 balance),
        // but a wrapped total would be a silent lie, so check.
        let (total, overflow) = jar.total.addingReportingOverflow(moved.amount)
        guard !overflow else { throw DatabaseError(.query, "tip jar \(jarID) total overflows") }
        jar.total = total
        jar.tipCount += 1
        let tip = TipRecord(transferID: moved.id, jarID: jarID, fromAccountID: moved.debitAccountID, amount: moved.amount, tippedAt: unit.now)
        try unit.connection.execute("UPDATE tip_jar_jars SET total = \(jar.total), tip_count = \(jar.tipCount) WHERE id = \(jar.id)")
        try unit.connection.execute(
            """
            INSERT INTO tip_jar_tips (transfer_id, jar_id, from_account_id, amount, tipped_at)
            VALUES (\(tip.transferID.description), \(jarID), \(tip.fromAccountID.description), \(tip.amount), \(tip.tippedAt))
            """
        )
        try unit.emit(
            TipJarEvents.jarTipped,
            subject: jar.id,
            data: TipJarEvents.Tipped(jar: JarRepresentation(jar), tip: TipRepresentation(tip, asset: jar.asset))
        )
        return .recorded(tip, jar)
    }

    /// Closes up to `limit` open jars whose `closes_at` is at or before the unit's time,
    /// appending `tipjar.jar.closed` for each, and returns them.
    static func closeDue(limit: Int, on unit: UnitOfWork) throws -> [TipJar] {
        let (now, connection) = (unit.now, unit.connection)
        let due = try connection.query(
            selectJars + " WHERE status = 'open' AND closes_at <= \(now) ORDER BY closes_at, seq LIMIT \(limit)" + .forUpdate(connection.dialect)
        ).map(jar(from:))
        var closed: [TipJar] = []
        for var jar in due {
            jar.status = .closed
            jar.closedAt = now
            try connection.execute("UPDATE tip_jar_jars SET status = 'closed', closed_at = \(now) WHERE id = \(jar.id)")
            try unit.emit(TipJarEvents.jarClosed, subject: jar.id, data: JarRepresentation(jar))
            closed.append(jar)
        }
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
