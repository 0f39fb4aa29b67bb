import CSQLite

/// A connection to a SQLite file in WAL mode with `synchronous=FULL`: every commit is fsynced.
///
/// Owns its `sqlite3*` and its prepared statements; not `Sendable`, so the handle cannot escape the
/// ``DatabaseWorker`` thread that opened it.
final class SQLiteConnection: SQLConnection, TransactionStateHolding {
    let dialect = SQLDialect.sqlite
    let transactionState = TransactionState()
    private var handle: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]
    /// The writer's: kept alive for the WAL hook, which holds it unretained.
    private let checkpointPolicy: SQLiteCheckpointPolicy?

    /// A compiled statement and what is known of it once: which `$N` each parameter slot takes, and
    /// its result's column names. The hot path (a group of hundreds of keyed reads) then neither
    /// parses parameter names nor hashes column names per call.
    private struct PreparedStatement {
        let handle: OpaquePointer
        /// `parameterNumbers[i]` is the N of slot i+1's `$N`.
        let parameterNumbers: [Int]
        let columns: SQLColumns
    }

    /// - Parameter checkpointer: the writer's connection passes the database's checkpointer,
    ///   which then copies the log into the database file instead of this connection's commits.
    init(path: String, busyTimeoutMilliseconds: Int32 = 30_000, checkpointer: SQLiteCheckpointer? = nil) throws {
        checkpointPolicy = checkpointer.map(SQLiteCheckpointPolicy.init)
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw DatabaseError(.connection, "cannot open SQLite database at \(path): \(message)", sqlState: String(rc))
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        _ = hub_sqlite_enable_defensive(db)
        try executeScript(
            """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            PRAGMA foreign_keys=ON;
            PRAGMA cache_size=-65536;
            """
        )
        if let checkpointPolicy {
            // Replaces SQLite's automatic checkpoint (itself a WAL hook) with the checkpointer.
            sqlite3_wal_hook(db, sqliteWALHook, Unmanaged.passUnretained(checkpointPolicy).toOpaque())
        }
    }

    deinit {
        // Not when opening failed: there is no handle, and this SQLite checks no null arguments.
        if checkpointPolicy != nil, let handle { sqlite3_wal_hook(handle, nil, nil) }
        for (_, statement) in statements { sqlite3_finalize(statement.handle) }
        sqlite3_close_v2(handle)
    }

    private var db: OpaquePointer {
        get throws {
            guard let handle else { throw DatabaseError(.closed, "SQLite connection is closed") }
            return handle
        }
    }

    func executeScript(_ sql: String) throws {
        let db = try db
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw error(rc, message, sql: sql)
        }
    }

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let statement = try prepared(sql, binds).handle
        defer { sqlite3_reset(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            if rc != SQLITE_ROW { throw error(rc, String(cString: sqlite3_errmsg(try db)), sql: sql) }
        }
        return Int(sqlite3_changes64(try db))
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let prepared = try prepared(sql, binds)
        let statement = prepared.handle
        defer { sqlite3_reset(statement) }
        let columns = sqlite3_column_count(statement)
        // The names were read at preparation; a schema change since (SQLite re-prepares by
        // itself) could change them, so they are read again if the count no longer matches.
        let names =
            Int(columns) == prepared.columns.names.count
            ? prepared.columns : SQLColumns((0..<columns).map { String(cString: sqlite3_column_name(statement, $0)) })
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc, String(cString: sqlite3_errmsg(try db)), sql: sql) }
            var cells: [SQLRow.Cell] = []
            cells.reserveCapacity(Int(columns))
            for column in 0..<columns {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER:
                    cells.append(.int(sqlite3_column_int64(statement, column)))
                case SQLITE_TEXT:
                    cells.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if count == 0 {
                        cells.append(.bytes([]))
                    } else {
                        let base = sqlite3_column_blob(statement, column)!.assumingMemoryBound(to: UInt8.self)
                        cells.append(.bytes(Array(UnsafeBufferPointer(start: base, count: count))))
                    }
                case SQLITE_NULL:
                    cells.append(.null)
                default:
                    // REAL: the hub never stores floating point; surface it rather than guess.
                    throw DatabaseError(.decode, "column \(column) holds a floating-point value", sql: sql)
                }
            }
            rows.append(SQLRow(cells: cells, columns: names))
        }
        return rows
    }

    /// Prepares (or reuses) the statement for `sql` and binds `binds` to `$1…$n`.
    private func prepared(_ sql: String, _ binds: [SQLValue]) throws -> PreparedStatement {
        let db = try db
        let statement: PreparedStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try prepare(sql, on: db)
            statements[sql] = statement
        }
        let handle = statement.handle
        sqlite3_clear_bindings(handle)
        guard statement.parameterNumbers.count == binds.count else {
            throw DatabaseError(.query, "statement expects \(statement.parameterNumbers.count) values, got \(binds.count)", sql: sql)
        }
        for (slot, number) in statement.parameterNumbers.enumerated() {
            guard number <= binds.count else { throw DatabaseError(.query, "placeholders must be $1…$\(binds.count)", sql: sql) }
            let index = Int32(slot + 1)
            let rc: Int32
            switch binds[number - 1] {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .int(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let t): rc = sqlite3_bind_text(handle, index, t, -1, hub_sqlite_transient())
            case .bytes(let b): rc = bindBlob(handle, index, b)
            case .uint128(let v): rc = bindBlob(handle, index, v.bigEndianBytes)
            }
            guard rc == SQLITE_OK else { throw error(rc, String(cString: sqlite3_errmsg(db)), sql: sql) }
        }
        return statement
    }

    private func prepare(_ sql: String, on db: OpaquePointer) throws -> PreparedStatement {
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else { throw error(rc, String(cString: sqlite3_errmsg(db)), sql: sql) }
        // SQLite numbers `$N` parameters by first appearance, not by N: `SET a = $3 WHERE b = $1`
        // has `$3` at slot 1. Binding by the number in the name lets both backends read `$N` alike.
        var numbers: [Int] = []
        for slot in Int32(1)...max(1, sqlite3_bind_parameter_count(raw)) where sqlite3_bind_parameter_count(raw) > 0 {
            guard let name = sqlite3_bind_parameter_name(raw, slot), name.pointee == UInt8(ascii: "$"),
                let number = Int(String(cString: name + 1)), number >= 1
            else {
                sqlite3_finalize(raw)
                throw DatabaseError(.query, "placeholders must be $1…$n", sql: sql)
            }
            numbers.append(number)
        }
        let columns = SQLColumns((0..<sqlite3_column_count(raw)).map { String(cString: sqlite3_column_name(raw, $0)) })
        return PreparedStatement(handle: raw, parameterNumbers: numbers, columns: columns)
    }

    private func bindBlob(_ statement: OpaquePointer, _ index: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { raw in
            // A zero-length blob still needs a non-nil pointer, or SQLite binds NULL.
            sqlite3_bind_blob(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), hub_sqlite_transient())
        }
    }

    private func error(_ rc: Int32, _ message: String, sql: String?) -> DatabaseError {
        let primary = rc & 0xff
        let kind: DatabaseError.Kind = primary == SQLITE_CONSTRAINT ? .constraint : .query
        return DatabaseError(kind, message, sqlState: String(rc), sql: sql)
    }
}
