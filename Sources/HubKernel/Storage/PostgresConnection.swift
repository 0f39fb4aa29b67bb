import CLibPQ

/// A connection to PostgreSQL through libpq, with a per-connection prepared-statement cache.
///
/// Values go as parameters: text format for numbers and strings, binary format for `bytea`.
/// Results come back in text format; integer columns are read as integers and `bytea` as bytes, by
/// column type. Not `Sendable`: the `PGconn*` stays on the ``DatabaseWorker`` thread that opened it.
final class PostgresConnection: SQLConnection, TransactionStateHolding {
    let transactionState = TransactionState()
    let dialect = SQLDialect.postgres
    private var handle: OpaquePointer?
    private var statementNames: [String: String] = [:]
    /// Names are never reused: a failed preparation is forgotten, its number is not.
    private var statementsPrepared = 0
    /// Statements sent in pipeline mode whose results are not read yet, in order; `prepares`
    /// marks a statement's preparation (forgotten again if it fails).
    private var pipelined: [(sql: String, prepares: Bool)] = []

    private enum TypeOID {
        static let int8: Oid = 20
        static let int2: Oid = 21
        static let int4: Oid = 23
        static let bytea: Oid = 17
    }

    /// Which of the hub's connections this is: its session settings differ (``Role/settings``).
    enum Role {
        case writer, reader

        /// Set on every (re)connection. Prepared statements and their plans: the hub prepares
        /// each statement once per connection. After five executions PostgreSQL may keep a
        /// generic plan, made without the values; one made while a table was nearly empty (a new
        /// hub, an event's first minutes) kept a lookup by primary key `IN ($1, $2)` a sequential
        /// scan as the table grew, until autovacuum analysed it: 80% of the database's time in
        /// `make bench-ble-sessions`.
        /// - A reader plans each execution with its values (`force_custom_plan`): it runs the
        ///   listings and searches, whose best plan depends on the values.
        /// - The writer runs the same few statements by key thousands of times a second, and
        ///   planning each execution was a third of its backend's CPU (`perf`, BLE session steps).
        ///   It keeps generic plans with sequential scans priced out (`enable_seqscan = off`), so
        ///   a plan made on an empty table still uses an index; a statement with no index to use
        ///   scans as before. But on an empty table every index costs the same, and PostgreSQL
        ///   may pick one that only narrows by a shared leading column: the local chain's pool
        ///   looked hashes up through its `(chain_id, seq)` index, reading every pending row of
        ///   the chain for each lookup once the pool had filled (166 ms a statement). So the
        ///   writer drops its plans at most once every ``replanInterval`` (``replansDue``), and
        ///   the next plans are costed with the tables' sizes of that moment.
        var settings: String {
            let common = "SET client_min_messages = warning; SET TIME ZONE 'UTC'; "
            switch self {
            case .writer: return common + "SET plan_cache_mode = auto; SET enable_seqscan = off;"
            case .reader: return common + "SET plan_cache_mode = force_custom_plan;"
            }
        }
    }

    private let sessionSettings: String
    /// The writer's: when its plans were last dropped (``Role/settings``); `nil` on a reader,
    /// whose plans are made for every execution.
    private var plansMadeSince: ContinuousClock.Instant?
    /// How long the writer keeps a plan at most: a queue-like table (the local chain's pool) goes
    /// from empty to tens of thousands of rows within seconds, and replanning its few dozen
    /// statements once a second costs nothing next to thousands of executions.
    static let replanInterval = Duration.seconds(1)

    init(url: String, role: Role = .reader) throws {
        sessionSettings = role.settings
        if role == .writer { plansMadeSince = .now }
        guard let conn = PQconnectdb(url) else {
            throw DatabaseError(.connection, "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(conn))
            PQfinish(conn)
            throw DatabaseError(.connection, "cannot connect to PostgreSQL: \(message)")
        }
        // Notices ("relation already exists, skipping") are not errors; keep them off stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        handle = conn
        try executeScript(sessionSettings)
    }

    deinit { PQfinish(handle) }

    /// Whether the session was inside a transaction at its last answer. When such a session is
    /// lost, the server rolls back what it had begun: the rest of that transaction must fail, not
    /// run on a new session one statement at a time (where its `COMMIT` would "succeed" and its
    /// caller would acknowledge writes that are gone).
    private var inTransaction = false
    /// The server answers but can no longer take this session's writes (it is shutting down, or
    /// became a standby in a failover): the next transaction starts on a new connection.
    private var mustReconnect = false

    /// The live connection, re-established first when the server went away — but only between
    /// transactions: inside one, every statement fails until the caller ends it (see
    /// ``inTransaction``). With a multi-host URL and `target_session_attrs=read-write`, libpq then
    /// finds whichever host is the primary now.
    private func connection(for sql: String) throws -> OpaquePointer {
        guard let handle else { throw DatabaseError(.closed, "PostgreSQL connection is closed") }
        guard mustReconnect || PQstatus(handle) != CONNECTION_OK else { return handle }
        if inTransaction {
            if Self.endsTransaction(sql) { inTransaction = false }
            throw DatabaseError(.connection, "lost the PostgreSQL connection inside a transaction; the server rolled it back", sql: sql)
        }
        // libpq re-establishes the same connection, but prepared statements are gone with the
        // old session. PQreset blocks, as every call here does: on the worker's own thread.
        PQreset(handle)
        statementNames.removeAll()
        pipelined.removeAll()
        guard PQstatus(handle) == CONNECTION_OK else {
            throw DatabaseError(.connection, "lost the PostgreSQL connection: \(Self.trimmed(PQerrorMessage(handle)))", sql: sql)
        }
        mustReconnect = false
        // A pipeline the old session broke in must not outlive it (the new one is idle).
        if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { _ = PQexitPipelineMode(handle) }
        // A new session: its settings are gone with the old one.
        let settings = PQexec(handle, sessionSettings)
        defer { PQclear(settings) }
        try check(settings, sql: sessionSettings)
        return handle
    }

    /// `COMMIT`, `ROLLBACK` and their synonyms end a transaction (`ROLLBACK TO SAVEPOINT` does not).
    static func endsTransaction(_ sql: String) -> Bool {
        let words = sql.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map { $0.uppercased() }
        guard let first = words.first, ["COMMIT", "ROLLBACK", "END", "ABORT"].contains(first) else { return false }
        return !words.contains("TO")
    }

    /// Notes whether the session is in a transaction, from its last answer (kept as it was while
    /// a pipeline runs or once the connection broke: then the last answer is what counts).
    private func noteTransactionStatus() {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: inTransaction = false
        case PQTRANS_INTRANS, PQTRANS_INERROR: inTransaction = true
        default: break
        }
    }

    func executeScript(_ sql: String) throws {
        try sync()
        let result = PQexec(try connection(for: sql), sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        return try rows(of: result, sql: sql)
    }

    /// Every statement in one pipeline: one round trip for all of them.
    func queries(_ statements: [(sql: String, binds: [SQLValue])]) throws -> [[SQLRow]] {
        guard statements.count > 1 else { return try statements.map { try query($0.sql, $0.binds) } }
        for statement in statements { try send(statement.sql, statement.binds) }
        let results = try sync(keeping: statements.count)
        defer { for result in results { PQclear(result) } }
        guard results.count == statements.count else {
            throw DatabaseError(.connection, "a pipeline of \(statements.count) queries returned \(results.count) results")
        }
        return try zip(results, statements).map { try rows(of: $0, sql: $1.sql) }
    }

    private func rows(of result: OpaquePointer?, sql: String) throws -> [SQLRow] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        let types = (0..<columnCount).map { PQftype(result, $0) }
        let names = SQLColumns((0..<columnCount).map { String(cString: PQfname(result, $0)) })
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var cells: [SQLRow.Cell] = []
            cells.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    cells.append(.null)
                    continue
                }
                let value = PQgetvalue(result, row, column)!
                let length = Int(PQgetlength(result, row, column))
                switch types[Int(column)] {
                case TypeOID.int8, TypeOID.int4, TypeOID.int2:
                    guard let v = Int64(String(cString: value)) else {
                        throw DatabaseError(.decode, "column \(column): bad integer", sql: sql)
                    }
                    cells.append(.int(v))
                case TypeOID.bytea:
                    cells.append(.bytes(try Self.decodeByteaHex(value, length: length)))
                default:
                    cells.append(.text(String(cString: value)))
                }
            }
            rows.append(SQLRow(cells: cells, columns: names))
        }
        return rows
    }

    /// Prepares `sql` once per connection and executes it with `binds`. Statements deferred before
    /// it travel in the same round trip (one pipeline, then a sync).
    private func run(_ sql: String, _ binds: [SQLValue]) throws -> OpaquePointer? {
        if !pipelined.isEmpty {
            try send(sql, binds)
            return try sync(keeping: 1).first
        }
        let conn = try connection(for: sql)
        let name = try preparedName(sql, on: conn)
        let result = Self.withParameters(binds) { count, values, lengths, formats in
            PQexecPrepared(conn, name, count, values, lengths, formats, 0)
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws {
        let begins = Self.beginsTransaction(sql)
        // Dropped between transactions, in the same round trip as the next one's first statement.
        if begins, replansDue() { try send("DISCARD PLANS", []) }
        try send(sql, binds)
        // A deferred `BEGIN` starts the transaction as far as this side knows: should the
        // session be lost before the server answers, the statements after it must fail, never
        // run on a new session outside any transaction.
        if begins { inTransaction = true }
    }

    /// Whether the writer's plans are older than ``replanInterval``; if so, they count as made
    /// now, since the caller drops them.
    private func replansDue() -> Bool {
        guard let since = plansMadeSince else { return false }
        let now = ContinuousClock.now
        guard now - since >= Self.replanInterval else { return false }
        plansMadeSince = now
        return true
    }

    /// Whether `sql` is a `BEGIN`, with or without its modes (the one way the hub defers the
    /// start of a transaction). Reads the first word alone, without allocating: most deferred
    /// statements are long multi-row inserts.
    static func beginsTransaction(_ sql: String) -> Bool {
        var bytes = sql.utf8.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }).makeIterator()
        for letter in "BEGIN".utf8 {
            // ASCII letters compare case-blind with bit 5 cleared.
            guard let byte = bytes.next(), byte & 0xDF == letter else { return false }
        }
        guard let next = bytes.next() else { return true }
        return next == UInt8(ascii: " ") || next == UInt8(ascii: ";") || next == UInt8(ascii: "\n")
    }

    // MARK: Pipeline

    /// Queues `sql` in pipeline mode without waiting for its result (preparing it first, also
    /// pipelined, when this connection has not seen it).
    private func send(_ sql: String, _ binds: [SQLValue]) throws {
        let conn = try connection(for: sql)
        if pipelined.isEmpty, PQenterPipelineMode(conn) != 1 {
            throw DatabaseError(.connection, "cannot enter pipeline mode: \(Self.trimmed(PQerrorMessage(conn)))", sql: sql)
        }
        let name: String
        if let known = statementNames[sql] {
            name = known
        } else {
            name = Self.statementName(&statementsPrepared)
            guard PQsendPrepare(conn, name, sql, 0, nil) == 1 else {
                throw DatabaseError(.connection, Self.trimmed(PQerrorMessage(conn)), sql: sql)
            }
            statementNames[sql] = name
            pipelined.append((sql, true))
        }
        let sent = Self.withParameters(binds) { count, values, lengths, formats in
            PQsendQueryPrepared(conn, name, count, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw DatabaseError(.connection, Self.trimmed(PQerrorMessage(conn)), sql: sql) }
        pipelined.append((sql, false))
    }

    /// Ends the pipeline: a sync, every queued result read, pipeline mode left. Throws the first
    /// failed statement's error (the server skipped the rest of the pipeline after it). Returns
    /// the results of the last `kept` statements (preparations aside), in order, for the caller
    /// to read and clear.
    @discardableResult
    private func sync(keeping kept: Int = 0) throws -> [OpaquePointer] {
        guard !pipelined.isEmpty else { return [] }
        // Not `connection(for:)`: a session lost since the statements were sent is an error here,
        // never a reason to reconnect (they would be gone with it).
        guard let conn = handle else { throw DatabaseError(.closed, "PostgreSQL connection is closed") }
        let statements = pipelined
        pipelined = []
        let keptPositions = Set(statements.indices.filter { !statements[$0].prepares }.suffix(kept))
        guard PQpipelineSync(conn) == 1 else {
            throw DatabaseError(.connection, "pipeline sync failed: \(Self.trimmed(PQerrorMessage(conn)))")
        }
        var failure: DatabaseError?
        var keptResults: [OpaquePointer] = []
        var index = 0
        var emptyReads = 0
        while true {
            guard let result = PQgetResult(conn) else {
                // NULL ends one statement's results; more of them than statements means the
                // connection broke before the sync came back.
                emptyReads += 1
                if emptyReads > statements.count + 1 {
                    failure = failure ?? DatabaseError(.connection, "lost the PostgreSQL connection: \(Self.trimmed(PQerrorMessage(conn)))")
                    break
                }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            let position = index
            let statement = index < statements.count ? statements[index] : (sql: "", prepares: false)
            index += 1
            if status == PGRES_PIPELINE_ABORTED {
                if statement.prepares { statementNames[statement.sql] = nil }
                PQclear(result)
                continue
            }
            do {
                try check(result, sql: statement.sql)
            } catch let error as DatabaseError {
                if statement.prepares { statementNames[statement.sql] = nil }
                failure = failure ?? error
                PQclear(result)
                continue
            }
            if keptPositions.contains(position) {
                keptResults.append(result)
            } else {
                PQclear(result)
            }
        }
        _ = PQexitPipelineMode(conn)
        noteTransactionStatus()
        if let failure {
            for result in keptResults { PQclear(result) }
            throw failure
        }
        return keptResults
    }

    // MARK: Statements and parameters

    private static func statementName(_ counter: inout Int) -> String {
        defer { counter += 1 }
        return "hub_s\(counter)"
    }

    private func preparedName(_ sql: String, on conn: OpaquePointer) throws -> String {
        if let cached = statementNames[sql] { return cached }
        let name = Self.statementName(&statementsPrepared)
        let prepared = PQprepare(conn, name, sql, 0, nil)
        defer { PQclear(prepared) }
        try check(prepared, sql: sql)
        statementNames[sql] = name
        return name
    }

    /// Calls `body` with libpq's parameter arrays for `binds`: text for numbers and strings, binary
    /// for bytes, all in one buffer so every pointer stays valid for the call.
    private static func withParameters<Result>(
        _ binds: [SQLValue],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> Result
    ) -> Result {
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        func appendText(_ text: String) {
            offsets.append(buffer.count)
            buffer.append(contentsOf: text.utf8)
            buffer.append(0)
            lengths.append(0)
            formats.append(0)
        }
        for value in binds {
            switch value {
            case .null:
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
            case .int(let v): appendText(String(v))
            case .text(let t): appendText(t)
            case .uint128(let v): appendText(String(v))
            case .bytes(let b):
                offsets.append(buffer.count)
                buffer.append(contentsOf: b)
                lengths.append(Int32(b.count))
                formats.append(1)
            }
        }
        if buffer.isEmpty { buffer.append(0) }
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            return body(Int32(binds.count), offsets.map { $0.map { base + $0 } }, lengths, formats)
        }
    }

    private func check(_ result: OpaquePointer?, sql: String) throws {
        noteTransactionStatus()
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = result.map { Self.trimmed(PQresultErrorMessage($0)) } ?? Self.trimmed(PQerrorMessage(handle))
        let kind: DatabaseError.Kind
        if PQstatus(handle) != CONNECTION_OK || Self.isServerGoingAway(state) {
            kind = .connection
            mustReconnect = true
        } else if state == "25006", PQparameterStatus(handle, "in_hot_standby").map({ String(cString: $0) }) == "on" {
            // A write refused because this server is a standby now (a failover demoted it).
            kind = .connection
            mustReconnect = true
        } else {
            // SQLSTATE class 23 is "integrity constraint violation".
            kind = state?.hasPrefix("23") == true ? .constraint : .query
        }
        throw DatabaseError(kind, message, sqlState: state, sql: sql)
    }

    /// SQLSTATE class 08 (connection exception) and 57P01–57P03: the server shut down, crashed or
    /// is not taking connections yet. Another attempt, maybe on another host, may succeed (what
    /// was cut off is rolled back, unless it was a `COMMIT` the server finished first: the
    /// caller cannot know, which is what idempotency keys are for). Not 08P01, a protocol
    /// violation: the server refusing what this side sent (more values than placeholders) is the
    /// hub's own failure, and the session goes on.
    static func isServerGoingAway(_ state: String?) -> Bool {
        guard let state, state != "08P01" else { return false }
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        var text = String(cString: message)
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }

    /// Decodes PostgreSQL's text form of `bytea` (`\x` followed by hex digits).
    static func decodeByteaHex(_ value: UnsafePointer<CChar>, length: Int) throws -> [UInt8] {
        let raw = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
        guard length >= 2, raw[0] == UInt8(ascii: "\\"), raw[1] == UInt8(ascii: "x"), length % 2 == 0 else {
            throw DatabaseError(.decode, "bytea value is not in hex format (is bytea_output = escape?)")
        }
        func nibble(_ c: UInt8) throws -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: throw DatabaseError(.decode, "bytea value has a non-hex digit")
            }
        }
        var out = [UInt8]()
        out.reserveCapacity((length - 2) / 2)
        var index = 2
        while index < length {
            out.append(try nibble(raw[index]) << 4 | nibble(raw[index + 1]))
            index += 2
        }
        return out
    }
}
