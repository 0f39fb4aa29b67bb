import HubTestSupport
import Testing

@testable import HubKernel

/// Statements written by interpolation bind their values; rows read by name and as tuples.
@Suite("Typed SQL", .timeLimit(.minutes(3)))
struct SQLTests {
    @Test("interpolated values are bound, never written into the statement; fragments renumber")
    func rendering() {
        let name = "x'); DROP TABLE hub_users; --"
        let id = AccountID(rawValue: 7)
        var statement: SQL = "SELECT a FROM t WHERE name = \(name) AND id = \(id)"
        statement += " AND k IN (\(list: [1, 2, 3]))" + " LIMIT \(10)"
        let (text, binds) = statement.rendered
        #expect(text == "SELECT a FROM t WHERE name = $1 AND id = $2 AND k IN ($3, $4, $5) LIMIT $6")
        #expect(binds == [.text(name), id.sqlValue, .int(1), .int(2), .int(3), .int(10)])
        let absent: String? = nil
        #expect(SQL("x = \(absent)").rendered.binds == [.null])
        #expect(SQL.joined(["a = \(1)", "b = \(2)"], separator: " AND ").rendered.text == "a = $1 AND b = $2")
        #expect(SQLIdentifier("ble_sessions_locks") != nil)
        #expect(SQLIdentifier("x; DROP") == nil)
        #expect(SQLIdentifier("1abc") == nil)
    }

    @Test("a value that looks like SQL is stored as it is", arguments: TestBackend.enabled)
    func boundValues(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            let hostile = "'); DELETE FROM t; --"
            let rows = try await database.write { connection in
                try connection.executeScript("CREATE TABLE t (k INTEGER PRIMARY KEY, name TEXT NOT NULL, amount \(connection.dialect.ddl("{u128}")))")
                try connection.execute("INSERT INTO t (k, name, amount) VALUES (\(1), \(hostile), \(UInt128.max))")
                try connection.execute("INSERT INTO t (k, name, amount) VALUES (\(2), \("plain"), \(UInt128(5)))")
                return try connection.query("SELECT k, name, amount FROM t WHERE k IN (\(list: [1, 2])) ORDER BY k")
            }
            #expect(rows.count == 2)
            #expect(try rows[0].text("name") == hostile)
            #expect(try rows[0].uint128("amount") == .max)
            let (k, name, amount) = try rows[1].decode(Int64.self, String.self, UInt128.self)
            #expect(k == 2 && name == "plain" && amount == 5)
            #expect(throws: DatabaseError.self) { try rows[0].int("missing") }
            #expect(throws: DatabaseError.self) { try rows[0].decode(Int64.self, String.self, UInt128.self, Int64.self) }
        }
    }
}
