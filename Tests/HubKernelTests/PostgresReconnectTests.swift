import Foundation
import HTTPTypes
import HubTestSupport
import Testing

@testable import HubKernel

/// A PostgreSQL session that dies — the primary crashed, a failover demoted it — as the hub's
/// connections see it: the session is ended from another one with `pg_terminate_backend`.
@Suite("PostgreSQL reconnection", .timeLimit(.minutes(1)))
struct PostgresReconnectTests {
    @Test(
        "a session lost inside a transaction fails the rest of it, never runs it on a new session, and reconnects at the next",
        .enabled(if: TestBackend.postgresURL != nil)
    )
    func lostInsideTransaction() async throws {
        try await withDatabase(on: .postgres) { database in
            guard case .postgres(let uri) = database.url else { return }
            try await database.write { try $0.execute("CREATE TABLE probe (k INTEGER PRIMARY KEY)") }
            let kinds = try await database.withWriterConnection { connection -> [String] in
                try connection.execute("BEGIN")
                try connection.execute("INSERT INTO probe (k) VALUES (1)")
                try Self.terminate(connection, through: uri)
                let kinds = Self.outcomes(of: ["INSERT INTO probe (k) VALUES (2)", "INSERT INTO probe (k) VALUES (3)", "COMMIT"], on: connection)
                // The transaction is over: the next statement runs on a new session.
                try connection.execute("INSERT INTO probe (k) VALUES (4)")
                return kinds
            }
            #expect(kinds == ["connection", "connection", "connection"])
            let keys = try await database.read { try $0.query("SELECT k FROM probe ORDER BY k").map { try $0.int("k") } }
            #expect(keys == [4])
        }
    }

    @Test(
        "a session lost before a deferred BEGIN reaches the server fails the transaction's statements, never runs them on a new session",
        .enabled(if: TestBackend.postgresURL != nil)
    )
    func lostBeforeDeferredBegin() async throws {
        try await withDatabase(on: .postgres) { database in
            guard case .postgres(let uri) = database.url else { return }
            try await database.write { try $0.execute("CREATE TABLE probe (k INTEGER PRIMARY KEY)") }
            let kinds = try await database.withWriterConnection { connection -> [String] in
                // Killed while idle: the client learns of it only when it next reads.
                guard let pid = try connection.queryFirst("SELECT pg_backend_pid() AS pid")?.int("pid") else { return [] }
                try Self.terminate(pid: pid, through: uri)
                // The transactions' way to begin: sent with the first statement.
                try connection.executeDeferred("BEGIN")
                let kinds = Self.outcomes(of: ["INSERT INTO probe (k) VALUES (1)", "INSERT INTO probe (k) VALUES (2)", "COMMIT"], on: connection)
                try connection.execute("INSERT INTO probe (k) VALUES (3)")
                return kinds
            }
            #expect(kinds == ["connection", "connection", "connection"])
            let keys = try await database.read { try $0.query("SELECT k FROM probe ORDER BY k").map { try $0.int("k") } }
            #expect(keys == [3])
        }
    }

    @Test(
        "a write transaction whose session dies throws unavailable, applies nothing, and the next write reconnects",
        .enabled(if: TestBackend.postgresURL != nil)
    )
    func writeTransactionLost() async throws {
        try await withDatabase(on: .postgres) { database in
            guard case .postgres(let uri) = database.url else { return }
            try await database.write { try $0.execute("CREATE TABLE probe (k INTEGER PRIMARY KEY)") }
            let error = await #expect(throws: DatabaseError.self) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO probe (k) VALUES (1)")
                    try Self.terminate(connection, through: uri)
                    _ = try? connection.execute("INSERT INTO probe (k) VALUES (2)")
                    try connection.execute("INSERT INTO probe (k) VALUES (3)")
                }
            }
            let unavailable = try #require(error.flatMap { DatabaseUnavailable($0) })
            let problem = ProblemMiddleware.problem(for: unavailable)
            #expect(problem.status.code == 503 && problem.code == "database_unavailable" && problem.headers[.retryAfter] == "1")
            try await database.write { try $0.execute("INSERT INTO probe (k) VALUES (5)") }
            let keys = try await database.read { try $0.query("SELECT k FROM probe ORDER BY k").map { try $0.int("k") } }
            #expect(keys == [5])
        }
    }

    @Test(
        "the writer keeps generic plans with sequential scans priced out, readers plan each execution; a new session gets them again",
        .enabled(if: TestBackend.postgresURL != nil)
    )
    func sessionSettingsByRole() async throws {
        try await withDatabase(on: .postgres) { database in
            guard case .postgres(let uri) = database.url else { return }
            let show = "SELECT current_setting('plan_cache_mode') AS plans, current_setting('enable_seqscan') AS seqscan"
            @Sendable func settings(_ connection: any SQLConnection) throws -> [String] {
                guard let row = try connection.queryFirst(SQL(stringLiteral: show)) else { return [] }
                return [try row.text("plans"), try row.text("seqscan")]
            }
            #expect(try await database.withWriterConnection { try settings($0) } == ["auto", "off"])
            for _ in 0..<3 { #expect(try await database.read { try settings($0) } == ["force_custom_plan", "on"]) }
            let again = try await database.withWriterConnection { connection in
                try Self.terminate(connection, through: uri)
                _ = try? connection.query(SQL(stringLiteral: show))  // fails: the session is gone
                return try settings(connection)
            }
            #expect(again == ["auto", "off"])
        }
    }

    @Test("only a lost or closed database is unavailable; a failed statement stays the hub's own failure")
    func unavailableKinds() {
        #expect(DatabaseUnavailable(DatabaseError(.connection, "gone")) != nil)
        #expect(DatabaseUnavailable(DatabaseError(.closed, "closed")) != nil)
        #expect(DatabaseUnavailable(DatabaseError(.query, "syntax error")) == nil)
        #expect(DatabaseUnavailable(DatabaseError(.constraint, "duplicate key")) == nil)
        #expect(PostgresConnection.isServerGoingAway("57P01") && PostgresConnection.isServerGoingAway("08006"))
        #expect(!PostgresConnection.isServerGoingAway("23505") && !PostgresConnection.isServerGoingAway(nil))
        // A protocol violation (more values than placeholders) is a refused statement, not a lost server.
        #expect(!PostgresConnection.isServerGoingAway("08P01"))
    }

    @Test("COMMIT, ROLLBACK, END and ABORT end a transaction; ROLLBACK TO SAVEPOINT does not")
    func transactionEnds() {
        for sql in ["COMMIT", "rollback", "END", "ABORT", "COMMIT;", "ROLLBACK TRANSACTION"] {
            #expect(PostgresConnection.endsTransaction(sql), "\(sql)")
        }
        for sql in ["ROLLBACK TO SAVEPOINT unit_1", "BEGIN", "RELEASE SAVEPOINT unit_1", "SELECT 1", "COMMITTED"] {
            #expect(!PostgresConnection.endsTransaction(sql), "\(sql)")
        }
    }

    @Test("BEGIN in any case and with its modes begins a transaction; other statements do not")
    func transactionBegins() {
        for sql in ["BEGIN", "begin", "BEGIN;", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "  BEGIN IMMEDIATE"] {
            #expect(PostgresConnection.beginsTransaction(sql), "\(sql)")
        }
        for sql in ["BEGINNING", "BEGI", "", "COMMIT", "SELECT 'BEGIN'", "INSERT INTO t (k) VALUES (1), (2)"] {
            #expect(!PostgresConnection.beginsTransaction(sql), "\(sql)")
        }
    }

    /// Runs each statement, going on after a failure (as a unit that catches one would), and
    /// says how each ended: "done" or the error's kind. Inside a lost transaction each must fail,
    /// `COMMIT` included, until the transaction is over.
    private static func outcomes(of statements: [SQL], on connection: any SQLConnection) -> [String] {
        statements.map { statement in
            do {
                try connection.execute(statement)
                return "done"
            } catch let error as DatabaseError {
                return error.kind.rawValue
            } catch {
                return "\(error)"
            }
        }
    }

    /// Ends `connection`'s session from a second one and waits until the server has let it go.
    /// Runs on the database worker's thread, where blocking is allowed.
    private static func terminate(_ connection: any SQLConnection, through uri: String) throws {
        guard let pid = try connection.queryFirst("SELECT pg_backend_pid() AS pid")?.int("pid") else {
            throw DatabaseError(.query, "no backend pid")
        }
        try terminate(pid: pid, through: uri)
    }

    private static func terminate(pid: Int64, through uri: String) throws {
        let other = try PostgresConnection(url: uri)
        _ = try other.query("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<100 {
            if try other.queryFirst("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = \(pid)")?.int("n") == 0 { return }
            usleep(20_000)
        }
        throw DatabaseError(.query, "the session \(pid) outlived pg_terminate_backend")
    }
}
