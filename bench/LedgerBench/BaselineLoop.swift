import CLibPQ
import CSQLite
import Foundation
import HubKernel

/// The baseline: the same writes per transfer as the ledger makes (insert the transfer, update
/// both accounts, append an event) done by a minimal hand-written loop straight on the C API, with
/// no checks, no batching logic and no abstraction. The ledger's figures divided by these give its
/// overhead (or its gain, where batching beats a statement per row).
protocol BaselineStore {
    func begin() throws
    func commit() throws
    func writeTransfer(id: [UInt8], debit: [UInt8], credit: [UInt8], sequence: Int64) throws
}

enum Baseline {
    static let accounts = 1000

    static func accountID(_ index: Int) -> [UInt8] { UInt128(index + 1).bigEndianBytes }

    /// `total` transfers, `perTransaction` per commit, from one caller.
    static func run(_ store: any BaselineStore, backend: String, total: Int, perTransaction: Int, firstSequence: Int64) throws -> BenchResult {
        var sequence = firstSequence
        var latencies = Latencies()
        let start = ContinuousClock.now
        var written = 0
        while written < total {
            let began = ContinuousClock.now
            try store.begin()
            for _ in 0..<perTransaction {
                let debit = Int.random(in: 0..<accounts)
                var credit = Int.random(in: 0..<accounts)
                while credit == debit { credit = Int.random(in: 0..<accounts) }
                sequence += 1
                try store.writeTransfer(
                    id: TransferID.random().rawValue.bigEndianBytes,
                    debit: accountID(debit),
                    credit: accountID(credit),
                    sequence: sequence
                )
            }
            try store.commit()
            latencies.add(ContinuousClock.now - began)
            written += perTransaction
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let single = perTransaction == 1
        return BenchResult(
            backend: backend,
            mode: single ? "baseline-single-1-caller" : "baseline-batched-\(perTransaction)",
            transfers: written,
            seconds: elapsed,
            transfers_per_sec: Double(written) / elapsed,
            p50_ms: single ? latencies.percentile(0.5) : nil,
            p99_ms: single ? latencies.percentile(0.99) : nil
        )
    }
}

final class SQLiteBaseline: BaselineStore {
    private var db: OpaquePointer?
    private var insertTransfer: OpaquePointer?
    private var updateDebit: OpaquePointer?
    private var updateCredit: OpaquePointer?
    private var insertEvent: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw BenchError("cannot open \(path)") }
        try exec(
            """
            PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
            CREATE TABLE accounts (id BLOB PRIMARY KEY, debits INTEGER NOT NULL, credits INTEGER NOT NULL);
            CREATE TABLE transfers (id BLOB PRIMARY KEY, debit BLOB NOT NULL, credit BLOB NOT NULL, amount INTEGER NOT NULL, ts INTEGER NOT NULL);
            CREATE TABLE events (sequence INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL);
            """
        )
        try exec("BEGIN")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO accounts VALUES (?1, 0, 0)", -1, &insert, nil)
        for index in 0..<Baseline.accounts {
            let id = Baseline.accountID(index)
            sqlite3_bind_blob(insert, 1, id, Int32(id.count), hub_sqlite_transient())
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try exec("COMMIT")
        insertTransfer = try prepare("INSERT INTO transfers VALUES (?1, ?2, ?3, 1, ?4)")
        updateDebit = try prepare("UPDATE accounts SET debits = debits + 1 WHERE id = ?1")
        updateCredit = try prepare("UPDATE accounts SET credits = credits + 1 WHERE id = ?1")
        insertEvent = try prepare("INSERT INTO events VALUES (?1, 'ledger.transfer.posted', ?2)")
    }

    deinit {
        for statement in [insertTransfer, updateDebit, updateCredit, insertEvent] { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        return statement
    }

    private func step(_ statement: OpaquePointer?) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }

    func begin() throws { try exec("BEGIN IMMEDIATE") }
    func commit() throws { try exec("COMMIT") }

    func writeTransfer(id: [UInt8], debit: [UInt8], credit: [UInt8], sequence: Int64) throws {
        sqlite3_bind_blob(insertTransfer, 1, id, 16, hub_sqlite_transient())
        sqlite3_bind_blob(insertTransfer, 2, debit, 16, hub_sqlite_transient())
        sqlite3_bind_blob(insertTransfer, 3, credit, 16, hub_sqlite_transient())
        sqlite3_bind_int64(insertTransfer, 4, sequence)
        try step(insertTransfer)
        sqlite3_bind_blob(updateDebit, 1, debit, 16, hub_sqlite_transient())
        try step(updateDebit)
        sqlite3_bind_blob(updateCredit, 1, credit, 16, hub_sqlite_transient())
        try step(updateCredit)
        sqlite3_bind_int64(insertEvent, 1, sequence)
        sqlite3_bind_text(insertEvent, 2, "{\"amount\":\"1\"}", -1, hub_sqlite_transient())
        try step(insertEvent)
    }
}

final class PostgresBaseline: BaselineStore {
    private let conn: OpaquePointer

    init(url: String) throws {
        guard let conn = PQconnectdb(url), PQstatus(conn) == CONNECTION_OK else { throw BenchError("cannot connect to \(url)") }
        self.conn = conn
        try exec(
            """
            SET client_min_messages = warning;
            DROP TABLE IF EXISTS baseline_accounts, baseline_transfers, baseline_events;
            CREATE TABLE baseline_accounts (id BYTEA PRIMARY KEY, debits BIGINT NOT NULL, credits BIGINT NOT NULL);
            CREATE TABLE baseline_transfers (id BYTEA PRIMARY KEY, debit BYTEA NOT NULL, credit BYTEA NOT NULL, amount BIGINT NOT NULL, ts BIGINT NOT NULL);
            CREATE TABLE baseline_events (sequence BIGINT PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL);
            INSERT INTO baseline_accounts SELECT int8send(g::bigint + 1), 0, 0 FROM generate_series(0, \(Baseline.accounts - 1)) g;
            """
        )
        // The accounts' ids above are 8 bytes; the loop uses the same 8-byte form.
        try prepare("ins_t", "INSERT INTO baseline_transfers VALUES ($1, $2, $3, 1, $4)")
        try prepare("upd_d", "UPDATE baseline_accounts SET debits = debits + 1 WHERE id = $1")
        try prepare("upd_c", "UPDATE baseline_accounts SET credits = credits + 1 WHERE id = $1")
        try prepare("ins_e", "INSERT INTO baseline_events VALUES ($1, 'ledger.transfer.posted', $2)")
    }

    deinit { PQfinish(conn) }

    private func exec(_ sql: String) throws {
        let result = PQexec(conn, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw BenchError(String(cString: PQerrorMessage(conn))) }
    }

    private func prepare(_ name: String, _ sql: String) throws {
        let result = PQprepare(conn, name, sql, 0, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw BenchError(String(cString: PQerrorMessage(conn))) }
    }

    private func run(_ name: String, _ values: [[UInt8]], binary: [Bool]) throws {
        let lengths = values.map { Int32($0.count) }
        let formats = binary.map { Int32($0 ? 1 : 0) }
        let pointers: [UnsafeMutablePointer<CChar>] = values.map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { p[index] = CChar(bitPattern: byte) }
            p[bytes.count] = 0
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        let arguments: [UnsafePointer<CChar>?] = pointers.map { UnsafePointer($0) }
        let result = PQexecPrepared(conn, name, Int32(values.count), arguments, lengths, formats, 0)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw BenchError(String(cString: PQerrorMessage(conn))) }
    }

    func begin() throws { try exec("BEGIN") }
    func commit() throws { try exec("COMMIT") }

    func writeTransfer(id: [UInt8], debit: [UInt8], credit: [UInt8], sequence: Int64) throws {
        // int8send gives 8 big-endian bytes: the low half of the 16-byte id.
        let debit8 = Array(debit.suffix(8))
        let credit8 = Array(credit.suffix(8))
        try run("ins_t", [id, debit8, credit8, Array(String(sequence).utf8)], binary: [true, true, true, false])
        try run("upd_d", [debit8], binary: [true])
        try run("upd_c", [credit8], binary: [true])
        try run("ins_e", [Array(String(sequence).utf8), Array("{\"amount\":\"1\"}".utf8)], binary: [false, false])
    }
}
