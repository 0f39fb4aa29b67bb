import Foundation
import HubTestSupport
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import HubKernel

/// The kernel's unit of work: many units per database transaction, each isolated by its savepoint;
/// a rail held to its own tables; events nudged after the commit.
@Suite("Units of work", .timeLimit(.minutes(4)))
struct UnitOfWorkTests {
    static func makeTable(_ ledger: Ledger) async throws {
        try await ledger.database.write { try $0.executeScript("CREATE TABLE tipjar_notes (name TEXT PRIMARY KEY)") }
    }

    static func notes(_ ledger: Ledger) async throws -> [String] {
        try await ledger.database.read { try $0.query("SELECT name FROM tipjar_notes ORDER BY name").map { try $0.text("name") } }
    }

    @Test("a unit that fails in a group rolls back alone; the others commit", arguments: TestBackend.enabled)
    func failingUnitRollsBackAlone(backend: TestBackend) async throws {
        struct Refused: Error {}
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000, of: usd, to: alice)
            // 60 units at once: every third writes its row and moves money, then throws; a unit
            // whose row collides with another's (a database error) must not take the group down.
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<60 {
                    group.addTask {
                        do {
                            try await ledger.write(as: .tipjar) { unit in
                                _ = try unit.submit(
                                    TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code))
                                )
                                let name = index == 59 ? "note-0" : "note-\(index)"
                                // Deferred: on PostgreSQL the collision surfaces only when the
                                // writer releases the unit's savepoint, and must fail this unit alone.
                                try unit.connection.executeDeferred("INSERT INTO tipjar_notes (name) VALUES (\(name))")
                                if index.isMultiple(of: 3) && index != 0 { throw Refused() }
                            }
                            return (index, true)
                        } catch is Refused {
                            return (index, false)
                        } catch is DatabaseError {
                            return (index, false)
                        }
                    }
                }
                return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            let committed = outcomes.filter(\.value).map(\.key)
            // 19 refused (3, 6, …, 57), and one of the two "note-0" writers lost on the key.
            #expect(committed.count == 60 - 19 - 1)
            #expect(try await Self.notes(ledger).count == committed.count)
            #expect(try await ledger.balance(bob).available == UInt128(committed.count))
            // The counters and the events, kept in memory through the group and restored with
            // each rolled-back unit's savepoint: the log's sequences have no gap and no reuse, the
            // counter ends at the last, transfer timestamps strictly increase, and the log holds
            // an event for each committed transfer and none for a rolled-back one.
            let (sequences, counter, timestamps, transfers, announced) = try await ledger.database.read { connection in
                (
                    try connection.query("SELECT sequence FROM hub_events ORDER BY sequence").map { try $0.int("sequence") },
                    try Counters.peek(.eventSequence, on: connection),
                    try connection.query("SELECT timestamp FROM ledger_transfers ORDER BY timestamp").map { try $0.int("timestamp") },
                    try connection.query("SELECT id FROM ledger_transfers").map { (try $0.decode("id") as TransferID).description }.sorted(),
                    try connection.query("SELECT subject FROM hub_events WHERE type = 'ledger.transfer.posted'")
                        .map { try $0.text("subject") }.sorted()
                )
            }
            #expect(sequences == Array(1...Int64(sequences.count)))
            #expect(counter == Int64(sequences.count))
            #expect(Set(timestamps).count == timestamps.count)
            #expect(transfers.count == committed.count + 1)
            #expect(announced == transfers)
            try await ledger.expectVerified()
        }
    }

    @Test("units of one group share the ledger's rows until the commit; a kernel unit reads them written back", arguments: TestBackend.enabled)
    func groupSharesLedgerRows(backend: TestBackend) async throws {
        struct Refused: Error {}
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            let hold = TransferID.random()
            let post = { @Sendable (amount: UInt128) in
                TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: amount, asset: usd.code))
            }
            // One unit holds the writer while five queue behind it, in order: those five then
            // run as one group, in one database transaction.
            let writer = ledger.writer
            let started = Atomic<Bool>(false)
            let gate = DispatchSemaphore(value: 0)
            let statisticsBefore = ledger.writerStatistics
            let holding = Task {
                try await ledger.write(as: .tipjar) { _ in
                    started.store(true, ordering: .sequentiallyConsistent)
                    gate.wait()
                }
            }
            while !started.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(2)) }
            func queue<Seen: Sendable>(as owner: UnitOwner, _ body: @escaping @Sendable (UnitOfWork) throws -> Seen) async throws -> Task<
                Seen, any Error
            > {
                let waiting = writer.queuedCount
                let task = Task { try await ledger.write(as: owner, body) }
                while writer.queuedCount == waiting { try await Task.sleep(for: .milliseconds(2)) }
                return task
            }
            // 1. Holds 30.
            let holds = try await queue(as: .tipjar) { unit in
                try unit.submit(
                    TransferRequest(id: hold, action: .hold(debit: alice.id, credit: bob.id, amount: 30, asset: usd.code, timeoutSeconds: 60))
                ).transfer != nil
            }
            // 2. Sees the hold, not yet written to the tables, and posts it.
            let posts = try await queue(as: .tipjar) { unit in
                (
                    try unit.pendingStatus(hold)?.state,
                    try unit.transfer(hold)?.amount,
                    try unit.accounts([bob.id, alice.id, alice.id]).map { [$0.id.description: $0.debitsPending] },
                    try unit.submit(TransferRequest(id: .random(), action: .postPending(pendingID: hold, amount: nil))).transfer != nil
                )
            }
            // 3. Moves 5, then fails: rolled back with its savepoint.
            let fails = try await queue(as: .tipjar) { unit in
                _ = try unit.submit(post(5))
                throw Refused()
            }
            // 4. A kernel unit moves 1 with the group's shared rows, then reads the tables
            // directly: its first statement writes the rows back, so it sees the hold posted, its
            // own 1, and the 5 that never moved.
            let reads = try await queue(as: .kernel) { unit in
                let sharedBefore = unit.database.activeTransaction?.ledger?.hasChanges == true
                let moved = try unit.submit(post(1)).transfer != nil
                let account = try unit.connection.queryFirst(
                    "SELECT debits_posted, debits_pending FROM ledger_accounts WHERE id = \(alice.id)"
                )
                let sharedAfter = unit.database.activeTransaction?.ledger != nil
                let state = try unit.connection.queryFirst("SELECT state FROM ledger_pending WHERE transfer_id = \(hold)")
                let transfers = try unit.connection.queryFirst("SELECT count(*) AS n FROM ledger_transfers")
                return (
                    try account?.uint128("debits_posted"), try account?.uint128("debits_pending"), try state?.text("state"),
                    try transfers?.int("n"), moved, sharedBefore, sharedAfter
                )
            }
            // 5. After the kernel unit, the rows are read again: its 1 is there.
            let rereads = try await queue(as: .tipjar) { unit in
                let moved = try unit.submit(post(2)).transfer != nil
                return (try unit.accounts([alice.id]).first?.debitsPosted, moved)
            }
            gate.signal()
            try await holding.value

            #expect(try await holds.value)
            let (state, amount, pending, posted) = try await posts.value
            #expect(state == .pending)
            #expect(amount == 30)
            #expect(pending == [alice, bob].sorted { $0.id < $1.id }.map { [$0.id.description: $0.id == alice.id ? 30 : 0] })
            #expect(posted)
            await #expect(throws: Refused.self) { try await fails.value }
            let (debitsPosted, debitsPending, holdState, transferCount, kernelMoved, sharedBefore, sharedAfter) = try await reads.value
            #expect(kernelMoved)
            #expect(sharedBefore)  // not written back for a kernel unit that runs no statement
            #expect(!sharedAfter)  // its statement wrote them back
            #expect(debitsPosted == 31)
            #expect(debitsPending == 0)
            #expect(holdState == "posted")
            #expect(transferCount == 4)  // the mint, the hold, its posting, the kernel unit's 1
            let (reread, lastMoved) = try await rereads.value
            #expect(reread == 33)
            #expect(lastMoved)
            // The holding unit's group, then the five's.
            #expect(ledger.writerStatistics.transactions - statisticsBefore.transactions == 2)
            #expect(try await ledger.balance(alice).available == 67)
            #expect(try await ledger.balance(bob).available == 33)
            try await ledger.expectVerified()
        }
    }

    @Test("a rail's unit touches only its own tables; the ledger and the log only through the unit", arguments: TestBackend.enabled)
    func railHeldToItsPrefix(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let foreign: [SQL] = [
                "UPDATE ledger_accounts SET credits_posted = 1000000 WHERE id = \(alice.id)",
                "INSERT INTO hub_events (sequence, id, type, source, time, data) VALUES (999, 'x', 't', 's', 'now', '{}')",
                "DELETE FROM hub_users",
                "SELECT name FROM tipjar_notes, hub_api_keys",
                "SELECT name FROM tipjar_notes WHERE name IN (SELECT id FROM hub_users)",
                "INSERT INTO tipjar_notes (name) SELECT id FROM ledger_accounts",
            ]
            for statement in foreign {
                await #expect(throws: UnitError.self, "\(statement)") {
                    try await ledger.write(as: .tipjar) { unit in _ = try unit.connection.query(statement) }
                }
            }
            // Its own tables, with a CTE, an upsert and a locking read, are fine.
            try await ledger.write(as: .tipjar) { unit in
                try unit.connection.execute(
                    "INSERT INTO tipjar_notes (name) VALUES ('a') ON CONFLICT (name) DO UPDATE SET name = excluded.name"
                )
                _ = try unit.connection.query("WITH recent AS (SELECT name FROM tipjar_notes) SELECT name FROM recent")
                _ = try unit.connection.query("SELECT name FROM tipjar_notes WHERE name = 'a'" + .forUpdate(unit.connection.dialect))
            }
            // Another rail's source is refused for events; its own is used.
            await #expect(throws: UnitError.self) {
                try await ledger.write(as: .tipjar) { unit in
                    try unit.append([NewEvent(type: "tipjar.tipped", source: "/rails/other", subject: nil, data: "{}", time: unit.now)])
                }
            }
            // A type it did not declare is refused, whether emitted or appended, and nothing of
            // the unit commits.
            let undeclared = await #expect(throws: UnitError.self) {
                try await ledger.write(as: .tipjar) { unit in
                    try unit.connection.execute("INSERT INTO tipjar_notes (name) VALUES ('b')")
                    try unit.emit("ledger.transfer.posted", subject: nil, data: ["forged": true])
                }
            }
            #expect("\(undeclared.map { "\($0)" } ?? "")".contains("'ledger.transfer.posted'"))
            await #expect(throws: UnitError.self) {
                try await ledger.write(as: .tipjar) { unit in
                    try unit.append([NewEvent(type: "tipjar.other", source: "/rails/tipjar", subject: nil, data: "{}", time: unit.now)])
                }
            }
            #expect(try await Self.notes(ledger) == ["a"])
            #expect(try await ledger.account(alice.id)?.available == 0)
        }
    }

    @Test("events a unit emits are typed, in the log after the commit, and the bus is nudged", arguments: TestBackend.enabled)
    func eventsAndNudge(backend: TestBackend) async throws {
        struct Tipped: Encodable { var jarId: String; var amount: String }
        let nudges = Atomic<Int>(0)
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let ledger = Ledger(database: database, logger: .init(label: "test"), onCommit: { _ in nudges.add(1, ordering: .relaxed) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for service in ledger.services { group.addTask { try await service.run() } }
                try await ledger.write(as: .tipjar) { unit in
                    try unit.emit("tipjar.tipped", subject: "jar-1", data: Tipped(jarId: "jar-1", amount: "5"))
                }
                #expect(nudges.load(ordering: .relaxed) >= 1)
                let events = try await database.read { try EventLog.read(after: 0, limit: 10, on: $0) }
                #expect(events.map(\.type) == ["tipjar.tipped"])
                #expect(events.first?.source == "/rails/tipjar")
                #expect(events.first?.data == #"{"amount":"5","jar_id":"jar-1"}"#)
                group.cancelAll()
            }
        }
    }

    @Test("table names are read from statements as a reader of SQL would")
    func tableNames() {
        #expect(SQLTableNames.tables(in: "SELECT a FROM x_t t JOIN x_u u ON t.id = u.id WHERE b IS DISTINCT FROM $1") == ["x_t", "x_u"])
        #expect(SQLTableNames.tables(in: "INSERT INTO x_t (a) VALUES ('from y') ON CONFLICT (a) DO UPDATE SET a = excluded.a") == ["x_t"])
        #expect(SQLTableNames.tables(in: "SELECT * FROM x_t -- FROM hub_users\n FOR UPDATE SKIP LOCKED") == ["x_t"])
        #expect(
            SQLTableNames.tables(in: "WITH r AS (SELECT a FROM x_t), s AS (SELECT a FROM r) SELECT a FROM s, \"HUB_users\"") == ["x_t", "hub_users"]
        )
        #expect(SQLTableNames.tables(in: "UPDATE x_t SET a = (SELECT max(a) FROM ledger_accounts)") == ["x_t", "ledger_accounts"])
        // Schema changes: the objects made and the tables they are made on.
        #expect(SQLTableNames.tables(in: "CREATE TABLE IF NOT EXISTS x_t (a INTEGER REFERENCES x_u (a))") == ["x_t"])
        #expect(SQLTableNames.tables(in: "CREATE UNIQUE INDEX IF NOT EXISTS x_i ON ONLY y_t (a, b)") == ["x_i", "y_t"])
        #expect(SQLTableNames.tables(in: "CREATE INDEX ON y_t (a)") == ["y_t"])
        #expect(SQLTableNames.tables(in: "DROP INDEX CONCURRENTLY y_i; ALTER TABLE x_t ADD COLUMN b TEXT") == ["y_i", "x_t"])
        #expect(SQLTableNames.tables(in: "CREATE VIEW y_v AS SELECT a FROM x_t; TRUNCATE TABLE y_t") == ["y_v", "x_t", "y_t", "y_t"])
    }
}

extension UnitOwner {
    /// The rail these tests write as, with the one event type it declares.
    static let tipjar = UnitOwner.rail("tipjar", eventTypes: ["tipjar.tipped"])
}
