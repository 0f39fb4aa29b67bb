import HubTestSupport
import Testing

@testable import HubKernel

/// A rail's database is read-only: the type has no `write`, and statements that change anything
/// are refused inside `read` too (SQLite's reader connections would run them).
@Suite("A rail's read-only database")
struct DatabaseReaderTests {
    @Test("reads run; writes inside a read are refused and change nothing", arguments: TestBackend.enabled)
    func refusesWrites(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            try await ledger.database.write { try $0.executeScript("CREATE TABLE tip_jar_notes (name TEXT PRIMARY KEY)") }
            let reader = DatabaseReader(ledger.database)
            let writes: [SQL] = [
                "INSERT INTO tip_jar_notes (name) VALUES ('a')",
                "INSERT INTO tip_jar_notes (name) VALUES ('b') RETURNING name",
                "WITH n AS (SELECT 'c' AS name) INSERT INTO tip_jar_notes (name) SELECT name FROM n RETURNING name",
                "DELETE FROM tip_jar_notes RETURNING name",
                "UPDATE tip_jar_notes SET name = 'd' RETURNING name",
            ]
            for statement in writes {
                await #expect(throws: ReadOnlyViolation.self, "\(statement)") {
                    try await reader.read { connection in _ = try connection.query(statement) }
                }
            }
            await #expect(throws: ReadOnlyViolation.self) {
                try await reader.read { connection in try connection.execute("INSERT INTO tip_jar_notes (name) VALUES ('e')") }
            }
            await #expect(throws: ReadOnlyViolation.self) {
                try await reader.read { connection in try connection.executeScript("DROP TABLE tip_jar_notes") }
            }
            let count = try await reader.read { try $0.queryFirst("SELECT count(*) AS n FROM tip_jar_notes")?.int("n") }
            #expect(count == 0)
        }
    }

    @Test("what counts as a query")
    func classifies() {
        #expect(ReadOnlyConnection.isQuery("SELECT id FROM tip_jar_jars WHERE id = $1 FOR UPDATE"))
        #expect(ReadOnlyConnection.isQuery("with t AS (SELECT 1) SELECT * FROM t"))
        #expect(ReadOnlyConnection.isQuery("SELECT replace(title, 'a', 'b') AS t FROM tip_jar_jars"))
        #expect(ReadOnlyConnection.isQuery("SELECT 'insert' AS word"))
        #expect(!ReadOnlyConnection.isQuery("REPLACE INTO tip_jar_jars (id) VALUES ($1)"))
        #expect(!ReadOnlyConnection.isQuery("WITH t AS (SELECT 1) REPLACE INTO tip_jar_jars (id) SELECT * FROM t"))
        #expect(!ReadOnlyConnection.isQuery("PRAGMA query_only = 0"))
        #expect(!ReadOnlyConnection.isQuery("WITH t AS (UPDATE tip_jar_jars SET title = 'x' RETURNING id) SELECT * FROM t"))
    }
}
