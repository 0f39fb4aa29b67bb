import HubTestSupport
import Testing

@testable import HubKernel

@Suite("Storage", .timeLimit(.minutes(3)))
struct StorageTests {
    @Test("values round-trip exactly, 2^128-1 included", arguments: TestBackend.enabled)
    func roundTrip(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            let ddl = database.dialect.ddl("CREATE TABLE t (k {bigint} PRIMARY KEY, a {u128}, b {bytes}, c TEXT)")
            let values: [(Int64, UInt128, [UInt8], String)] = [
                (1, .max, [0, 1, 255], "ünïcode ✓ \"quoted\""),
                (2, 0, [], ""),
                (3, UInt128(UInt64.max) + 1, Array(repeating: 0xAB, count: 100), "x"),
                (Int64.max, 10_000_000_000_000_000_000_000_000_000, [7], "big key"),
            ]
            let rows = try await database.write { connection in
                try connection.executeScript(ddl)
                for (k, a, b, c) in values {
                    try connection.execute("INSERT INTO t (k, a, b, c) VALUES (\(k), \(a), \(b), \(c))")
                }
                try connection.execute("INSERT INTO t (k) VALUES (\(Int64(-5)))")
                return try connection.query("SELECT k, a, b, c FROM t ORDER BY k")
            }
            #expect(rows.count == values.count + 1)
            #expect(try rows[0].decode(Int64.self, UInt128?.self, [UInt8]?.self, String?.self) == (Int64(-5), nil, nil, nil))
            for (row, expected) in zip(rows.dropFirst(), values) {
                #expect(try row.int("k") == expected.0)
                #expect(try row.uint128("a") == expected.1)
                #expect(try row.bytes("b") == expected.2)
                #expect(try row.text("c") == expected.3)
            }
        }
    }

    @Test("a deferred statement's error comes with the next statement that is read, and names it", arguments: TestBackend.enabled)
    func deferredErrors(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { try $0.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)") }
            // Several deferred writes, then a read: all in one round trip on PostgreSQL, and the
            // read sees them.
            let count = try await database.write { connection in
                for k in 1...5 { try connection.executeDeferred("INSERT INTO t (k, v) VALUES (\(k), \("v\(k)"))") }
                return try connection.queryFirst("SELECT count(*) AS n FROM t")?.int("n")
            }
            #expect(count == 5)
            // A deferred duplicate fails the transaction at its next read, with its own statement
            // named; nothing of the transaction stays, and the connection works afterwards.
            await #expect(throws: DatabaseError.self) {
                try await database.write { connection in
                    try connection.executeDeferred("INSERT INTO t (k, v) VALUES (\(6), \("six"))")
                    try connection.executeDeferred("INSERT INTO t (k, v) VALUES (\(1), \("again"))")
                    _ = try connection.query("SELECT k FROM t")
                }
            }
            // A statement that cannot be prepared, deferred, is forgotten: the next use of the
            // connection prepares new statements under fresh names.
            await #expect(throws: DatabaseError.self) {
                try await database.write { try $0.executeDeferred("INSERT INTO no_such_table (k) VALUES (\(1))") }
            }
            let keys = try await database.write { connection in
                try connection.executeDeferred("INSERT INTO t (k, v) VALUES (\(7), \("seven"))")
                return try connection.query("SELECT k FROM t ORDER BY k").map { try $0.int("k") }
            }
            #expect(keys == [1, 2, 3, 4, 5, 7])
        }
    }

    @Test("independent queries sent together return each one's rows in order; a failing one fails them all", arguments: TestBackend.enabled)
    func pipelinedQueries(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { try $0.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)") }
            let results = try await database.write { connection in
                // Deferred writes first (they travel in the same pipeline), then statements this
                // connection has not prepared yet, between ones it has.
                for k in 1...3 { try connection.executeDeferred("INSERT INTO t (k, v) VALUES (\(k), \("v\(k)"))") }
                return try connection.queries([
                    "SELECT v FROM t WHERE k = \(2)",
                    "SELECT k FROM t WHERE k >= \(2) ORDER BY k DESC",
                    "SELECT v FROM t WHERE k = \(9)",
                    "SELECT count(*) AS n FROM t",
                ])
            }
            #expect(try results[0].map { try $0.text("v") } == ["v2"])
            #expect(try results[1].map { try $0.int("k") } == [3, 2])
            #expect(results[2].isEmpty)
            #expect(try results[3].first?.int("n") == 3)
            let failed = await #expect(throws: DatabaseError.self) {
                try await database.write { connection in
                    _ = try connection.queries(["SELECT k FROM t", "SELECT k FROM no_such_table", "SELECT v FROM t"])
                }
            }
            #expect(failed?.sql?.contains("no_such_table") == true)
            let count = try await database.write { try $0.queries(["SELECT count(*) AS n FROM t"])[0].first?.int("n") }
            #expect(count == 3)
        }
    }

    @Test("a keyed delete runs over every chunk of its keys and touches no other row", arguments: TestBackend.enabled)
    func keyedDelete(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { try $0.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)") }
            // 1,100 rows; every third of the first 1,000 goes, with two keys that name no row: 336
            // keys, in chunks of 256 + 64 + 16 on PostgreSQL.
            let doomed = Array(stride(from: 0, to: 1000, by: 3)) + [5_000, 5_001]
            let left = try await database.write { connection in
                try connection.insertMany(into: "t", columns: ["k", "v"], rows: (0..<1100).map { [.int(Int64($0)), .text("v\($0)")] })
                try connection.executeIn("DELETE FROM t WHERE k", keys: doomed.map(Int64.init))
                return try connection.query("SELECT k FROM t ORDER BY k").map { try $0.int("k") }
            }
            #expect(left == (0..<1100).filter { $0 >= 1000 || $0 % 3 != 0 }.map(Int64.init))
            // A failing chunk fails its unit: the error comes with the next statement that is read.
            let failed = await #expect(throws: DatabaseError.self) {
                try await database.write { connection in
                    try connection.executeIn("DELETE FROM no_such_table WHERE k", keys: [Int64(1), 2])
                    _ = try connection.query("SELECT count(*) AS n FROM t")
                }
            }
            #expect(failed?.sql?.contains("no_such_table") == true)
        }
    }

    /// The writer keeps PostgreSQL's generic plans (see ``PostgresConnection/Role``). One made
    /// while a table held one row must still use the table's index once it has grown, before any
    /// ANALYZE: with sequential scans left in, it stays a scan of the whole table.
    @Test(
        "PostgreSQL: the writer's generic plan made on a one-row table still uses the index after the table grew",
        arguments: TestBackend.enabled.filter { $0 == .postgres }
    )
    func genericPlansKeepTheIndex(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { connection in
                try connection.executeScript("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'); ANALYZE t")
            }
            // Prepared and run more than five times: PostgreSQL then settles on a generic plan.
            try await database.write { connection in
                try connection.executeScript("PREPARE lookup(integer, integer) AS SELECT v FROM t WHERE k IN ($1, $2)")
                for _ in 0..<8 { try connection.executeScript("EXECUTE lookup(1, 2)") }
            }
            try await database.write { try $0.execute("INSERT INTO t SELECT g, 'x' FROM generate_series(2, 50000) g") }
            let plan = try await finalPlan(of: "lookup(1, 2)", on: database)
            #expect(plan.contains("Index") && !plan.contains("Seq Scan"), "\(plan)")
        }
    }

    /// The plan the writer runs the prepared statement `execute` names with now; the statement is
    /// then deallocated.
    private func finalPlan(of execute: String, on database: Database) async throws -> String {
        try await database.write { connection in
            defer { try? connection.executeScript("DEALLOCATE lookup") }
            return try connection.query("EXPLAIN EXECUTE " + execute, []).map { try $0.text(0) }.joined(separator: "\n")
        }
    }

    /// On an empty table every index costs the same, and a generic plan made then may look rows
    /// up through an index that only narrows them by a shared leading column (the local chain's
    /// pool: its hashes through `(chain_id, seq)`). The writer drops its plans at most once every
    /// ``PostgresConnection/replanInterval``, so the next plan is costed with the table's size.
    @Test(
        "PostgreSQL: the writer replans within its interval, so a plan made on an empty table does not outlive the table's growth",
        arguments: TestBackend.enabled.filter { $0 == .postgres }
    )
    func writerReplans(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { connection in
                try connection.executeScript(
                    """
                    CREATE TABLE q (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c BIGINT NOT NULL, h TEXT NOT NULL, UNIQUE (c, h));
                    CREATE INDEX q_order ON q (c, seq);
                    ANALYZE q;
                    """
                )
            }
            // Run more than five times, then explained: PostgreSQL settles on a generic plan, made
            // on the empty table.
            let before = try await database.write { connection in
                try connection.executeScript("PREPARE lookup(bigint, text, text) AS SELECT h FROM q WHERE c = $1 AND h IN ($2, $3)")
                for _ in 0..<8 { try connection.executeScript("EXECUTE lookup(1, 'a', 'b')") }
                return try connection.query("EXPLAIN EXECUTE lookup(1, 'a', 'b')").map { try $0.text(0) }.joined(separator: "\n")
            }
            #expect(before.contains("q_order"), "the plan this test is about was not made: \(before)")
            try await database.write { try $0.execute("INSERT INTO q (c, h) SELECT 1, md5(g::text) FROM generate_series(1, 30000) g") }
            try await Task.sleep(for: PostgresConnection.replanInterval + .milliseconds(100))
            let after = try await finalPlan(of: "lookup(1, 'a', 'b')", on: database)
            #expect(after.contains("q_c_h_key") && !after.contains("q_order"), "\(after)")
        }
    }

    /// The backends' own entry point (what ``SQL`` renders to), with placeholders written by hand
    /// to check that they bind by number, not by position.
    @Test("placeholders bind by their number, in any order and repeated", arguments: TestBackend.enabled)
    func placeholderOrder(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            let row = try await database.write { connection in
                try connection.execute("CREATE TABLE t (a TEXT, b TEXT, c TEXT)")
                try connection.execute("INSERT INTO t (c, a, b) VALUES ($3, $1, $2)", [.text("a"), .text("b"), .text("c")])
                try connection.execute("UPDATE t SET b = $2 WHERE a = $1 AND c = $3", [.text("a"), .text("B"), .text("c")])
                return try connection.query("SELECT a, b, c FROM t WHERE a = $1 OR b = $1", [.text("a")]).first
            }
            #expect(try row?.text(0) == "a")
            #expect(try row?.text(1) == "B")
            #expect(try row?.text(2) == "c")
        }
    }

    @Test("interpolated values bind as parameters; fragments, lists and identifiers are text", arguments: TestBackend.enabled)
    func interpolation(backend: TestBackend) async throws {
        let hostile = "x'); DROP TABLE t; --"
        let table = try #require(SQLIdentifier("t"))
        let column = try #require(SQLIdentifier("a"))
        let condition: SQL = "b = \(hostile)"
        let statement: SQL =
            "SELECT a, b FROM \(identifier: table) WHERE \(condition) AND a IN (\(list: [Int64(1), 2, 3]))"
            + .page(after: Int64(1), by: column, limit: 5)
        #expect(statement.rendered.text == "SELECT a, b FROM t WHERE b = $1 AND a IN ($2, $3, $4) AND a > $5 ORDER BY a LIMIT $6")
        #expect(statement.rendered.binds == [.text(hostile), .int(1), .int(2), .int(3), .int(1), .int(5)])
        try await withDatabase(on: backend) { database in
            let rows = try await database.write { connection in
                try connection.execute("CREATE TABLE t (a INTEGER, b TEXT)")
                for a in Int64(1)...4 { try connection.execute("INSERT INTO t (a, b) VALUES (\(a), \(hostile))") }
                return try connection.query(statement)
            }
            #expect(try rows.map { try $0.decode(Int64.self, String.self) }.map(\.0) == [Int64(2), 3])
            #expect(try rows.map { try $0.text("b") } == [hostile, hostile])
            let missing = #expect(throws: DatabaseError.self) { try rows[0].int("c") }
            #expect(missing?.kind == .decode)
        }
    }

    @Test("a failing transaction is rolled back whole", arguments: TestBackend.enabled)
    func rollback(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { try $0.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)") }
            await #expect(throws: DatabaseError.self) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO t (k) VALUES (\(1))")
                    try connection.execute("INSERT INTO t (k) VALUES (\(1))")
                }
            }
            let count = try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM t")!.int("n") }
            #expect(count == 0)
            // More values than placeholders: only the backends' own entry point can say that.
            let error = await #expect(throws: DatabaseError.self) {
                try await database.write { try $0.execute("INSERT INTO t (k) VALUES ($1)", [.int(1), .int(2)]) }
            }
            #expect(error?.kind == .query)
        }
    }

    @Test("migrations apply once, in order; a newer or different history is refused", arguments: TestBackend.enabled)
    func migrations(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            let group = MigrationGroup("demo")
            let first = Migration("001_a", portable: "CREATE TABLE demo_a (id {id} PRIMARY KEY)")
            let second = Migration("002_b", portable: "CREATE TABLE demo_b (id {id} PRIMARY KEY)")
            let old = Migrator([(group: group, migrations: [first])])
            let new = Migrator([(group: group, migrations: [first, second])])

            #expect(try await new.status(of: database).pending["demo"] == ["001_a", "002_b"])
            #expect(try await old.migrate(database) == ["demo/001_a"])
            await #expect(throws: DatabaseError.self) { try await new.requireCurrent(database) }
            #expect(try await new.migrate(database) == ["demo/002_b"])
            #expect(try await new.migrate(database).isEmpty)
            #expect(try await new.status(of: database).isCurrent)

            // The database is now newer than the old build: it must refuse, not guess.
            let tooNew = await #expect(throws: DatabaseError.self) { try await old.status(of: database) }
            #expect(tooNew?.kind == .schemaTooNew)
            let renamed = Migrator([(group: group, migrations: [first, Migration("002_other", portable: "SELECT 1")])])
            let mismatch = await #expect(throws: DatabaseError.self) { try await renamed.migrate(database) }
            #expect(mismatch?.kind == .migrationHistory)

            // A migration that fails leaves neither its DDL nor its history row behind.
            let broken = Migrator([
                (group: group, migrations: [first, second, Migration("003_bad", portable: "CREATE TABLE demo_c (x INTEGER); NOT SQL")])
            ])
            await #expect(throws: DatabaseError.self) { try await broken.migrate(database) }
            #expect(try await broken.status(of: database).pending["demo"] == ["003_bad"])
            let leftover = try await database.read { connection in
                try connection.query(
                    connection.dialect == .sqlite
                        ? "SELECT name FROM sqlite_master WHERE name = 'demo_c'"
                        : "SELECT tablename FROM pg_tables WHERE tablename = 'demo_c' AND schemaname = current_schema()"
                ).count
            }
            #expect(leftover == 0)
        }
    }

    @Test(
        "a plugin's migration naming a table outside its prefix is refused and changes nothing; a declared one runs",
        arguments: TestBackend.enabled
    )
    func pluginMigrationsHeldToPrefix(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await database.write { try $0.executeScript("CREATE TABLE kernelish_rows (id INTEGER PRIMARY KEY, rail TEXT)") }
            let group = MigrationGroup.rail("demo-rail")
            let own = Migration(
                "001_own",
                portable: "CREATE TABLE demo_rail_a (id {id} PRIMARY KEY); CREATE INDEX demo_rail_a_id ON demo_rail_a (id)"
            )
            for foreign in [
                "CREATE TABLE demo_rail_b (id INTEGER); UPDATE kernelish_rows SET rail = 'demo-rail'",
                "CREATE INDEX demo_rail_idx ON kernelish_rows (rail)",
                "CREATE INDEX kernelish_idx ON demo_rail_a (id)",
                "DROP TABLE kernelish_rows",
            ] {
                let migrator = Migrator([(group: group, migrations: [own, Migration("002_foreign", portable: foreign)])])
                let refused = await #expect(throws: UnitError.self) { try await migrator.migrate(database) }
                #expect("\(refused.map { "\($0)" } ?? "")".contains("kernelish"), "\(foreign)")
                #expect(try await migrator.status(of: database).pending["demo-rail"] == ["002_foreign"])
            }
            // Nothing of the refused script ran: its own first statement neither.
            let tables = try await database.read { connection in
                try connection.query(
                    connection.dialect == .sqlite
                        ? "SELECT name FROM sqlite_master WHERE name LIKE 'demo_rail_%' AND type = 'table' ORDER BY name"
                        : "SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'demo_rail_%' AND schemaname = current_schema() ORDER BY tablename"
                ).map { try $0.text("name") }
            }
            #expect(tables == ["demo_rail_a"])

            let declared = Migration(
                "002_foreign",
                portable: "UPDATE kernelish_rows SET rail = 'demo-rail'",
                alsoWrites: ["kernelish_rows"]
            )
            #expect(try await Migrator([(group: group, migrations: [own, declared])]).migrate(database) == ["demo-rail/002_foreign"])
            // The kernel's own groups are not held to a prefix.
            let kernel = Migrator([(group: MigrationGroup("demo"), migrations: [Migration("001", portable: "UPDATE kernelish_rows SET rail = NULL")])]
            )
            #expect(try await kernel.migrate(database) == ["demo/001"])
        }
    }

    @Test(
        "canonical decimal parsing accepts exactly the digits of 0...2^128-1",
        arguments: [
            ("0", UInt128?.some(0)), ("5000", 5000), ("340282366920938463463374607431768211455", .max),
            ("340282366920938463463374607431768211456", nil), ("-1", nil), ("1e3", nil), ("1.0", nil), ("007", nil),
            ("", nil), (" 1", nil), ("+1", nil), ("0x10", nil),
        ]
    )
    func decimal(text: String, expected: UInt128?) {
        #expect(UInt128(canonicalDecimal: text) == expected)
    }

    @Test("identifiers print as UUIDs and parse back")
    func identifiers() {
        let id = TransferID.random()
        #expect(TransferID(id.description) == id)
        #expect(id.description.count == 36)
        #expect(AccountID("00000000-0000-0000-0000-000000000001")?.rawValue == 1)
        #expect(AccountID("0000000000000000000000000000000A")?.rawValue == 10)
        #expect(AccountID("not-a-uuid") == nil)
        #expect(AccountID("00000000-0000-0000-0000-00000000000g") == nil)
    }

    @Test("malformed database URLs are refused with the reason")
    func urls() throws {
        #expect(try DatabaseURL("sqlite:./var/x.sqlite") == .sqlite(path: "./var/x.sqlite"))
        #expect(try DatabaseURL("sqlite:///abs/x.sqlite") == .sqlite(path: "/abs/x.sqlite"))
        #expect(throws: DatabaseError.self) { try DatabaseURL("mysql://x") }
        let unreachable = DatabaseURL.postgres(uri: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        #expect(unreachable.dialect == .postgres)
    }

    @Test("an unreachable PostgreSQL fails with a connection error, not a crash")
    func unreachable() async throws {
        let error = await #expect(throws: DatabaseError.self) {
            _ = try await Database.open(.postgres(uri: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"))
        }
        #expect(error?.kind == .connection)
    }
}
