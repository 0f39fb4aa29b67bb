import CSQLite

/// A connection to a SQLite file in WAL mode with `synchronous=FULL`: every commit is fsynced.
///
/// Owns its `sqlite3*` and its prepared statements; not `Sendable`, so the handle cannot escape the
/// ``DatabaseWorker`` thread that opened it.
final class SQLiteConnection: SQLConnection {
    let dialect = SQLDialect.sqlite
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    init(path: String, busyTimeoutMilliseconds: Int32 = 30_000) throws {
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
    }

    deinit {
        for (_, statement) in statements { sqlite3_finalize(statement) }
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
        let statement = try prepared(sql, binds)
        defer { sqlite3_reset(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            if rc != SQLITE_ROW { throw error(rc, String(cString: sqlite3_errmsg(try db)), sql: sql) }
        }
        return Int(sqlite3_changes64(try db))
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql, binds)
        defer { sqlite3_reset(statement) }
        let columns = sqlite3_column_count(statement)
        let names = SQLColumns((0..<columns).map { String(cString: sqlite3_column_name(statement, $0)) })
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
    private func prepared(_ sql: String, _ binds: [SQLValue]) throws -> OpaquePointer {
        let db = try db
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var raw: OpaquePointer?
            let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
            guard rc == SQLITE_OK, let raw else { throw error(rc, String(cString: sqlite3_errmsg(db)), sql: sql) }
            statements[sql] = raw
            statement = raw
        }
        sqlite3_clear_bindings(statement)
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == binds.count else {
            throw DatabaseError(.query, "statement expects \(expected) values, got \(binds.count)", sql: sql)
        }
        for index in Int32(1)...Int32(max(expected, 1)) where expected > 0 {
            // SQLite numbers `$N` parameters by first appearance, not by N: `SET a = $3 WHERE b = $1`
            // has `$3` at index 1. Bind by the number in the name so both backends read `$N` alike.
            guard let name = sqlite3_bind_parameter_name(statement, index), name.pointee == UInt8(ascii: "$"),
                let number = Int(String(cString: name + 1)), (1...binds.count).contains(number)
            else {
                throw DatabaseError(.query, "placeholders must be $1…$\(binds.count)", sql: sql)
            }
            let value = binds[number - 1]
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .int(let v): rc = sqlite3_bind_int64(statement, index, v)
            case .text(let t): rc = sqlite3_bind_text(statement, index, t, -1, hub_sqlite_transient())
            case .bytes(let b): rc = bindBlob(statement, index, b)
            case .uint128(let v): rc = bindBlob(statement, index, v.bigEndianBytes)
            }
            guard rc == SQLITE_OK else { throw error(rc, String(cString: sqlite3_errmsg(db)), sql: sql) }
        }
        return statement
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
