import Foundation
import HubTestSupport
import Logging
import Testing

@testable import HubKernel

/// One instance at a time does work that must run once; a paused holder cannot commit after a takeover.
@Suite("Leases and leaders", .timeLimit(.minutes(4)))
struct LeaseTests {
    static func makeTable(_ database: Database) async throws {
        try await database.write { connection in
            let key = connection.dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
            try connection.executeScript("CREATE TABLE sealed (seq \(key), epoch INTEGER NOT NULL, holder TEXT NOT NULL)")
        }
    }

    /// Work fenced by `lease`: a row naming the epoch and holder.
    static func seal(_ lease: Lease, on database: Database) async throws {
        try await database.write { connection in
            try lease.fence(on: connection)
            try connection.execute("INSERT INTO sealed (epoch, holder) VALUES (\(lease.epoch ?? -1), \(lease.holder))")
        }
    }

    @Test(
        "one holder at a time; an expired lease is taken over with a new epoch; the paused holder's write is refused",
        arguments: TestBackend.enabled
    )
    func takeoverAndFencing(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            try await Self.makeTable(database)
            let first = Lease(name: "test:sealer", database: database, clock: clock.ledgerClock, holder: "first")
            let second = Lease(name: "test:sealer", database: database, clock: clock.ledgerClock, holder: "second")
            #expect(try await first.acquireOrRenew())
            #expect(try await !second.acquireOrRenew())
            try await Self.seal(first, on: database)
            clock.advance(seconds: 3)
            #expect(try await first.acquireOrRenew(), "the holder renews")
            clock.advance(seconds: 4)
            #expect(try await !second.acquireOrRenew(), "a renewed lease is not taken")

            // The holder pauses past its lease: the other takes over with the next epoch.
            clock.advance(seconds: 6)
            #expect(try await second.acquireOrRenew())
            #expect(second.epoch == 2)
            // The paused holder wakes and tries to write under its old epoch: refused, nothing written.
            await #expect(throws: LeaseLost.self) { try await Self.seal(first, on: database) }
            #expect(first.epoch == nil)
            #expect(try await !first.acquireOrRenew())
            try await Self.seal(second, on: database)
            let rows = try await database.read {
                try $0.query("SELECT epoch, holder FROM sealed ORDER BY epoch").map { "\(try $0.int("epoch")):\(try $0.text("holder"))" }
            }
            #expect(rows == ["1:first", "2:second"])

            // Released, it is taken at once, without waiting for it to expire.
            try await second.release()
            #expect(try await first.acquireOrRenew())
            #expect(first.epoch == 3)
        }
    }

    @Test("many instances racing for a lease: exactly one wins each round", arguments: TestBackend.enabled)
    func race(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            for round in 0..<5 {
                let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            try await Lease(name: "test:race:\(round)", database: database, holder: "instance-\(index)").acquireOrRenew()
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(winners == 1)
            }
        }
    }

    @Test("a leader service runs its work on one instance; when that one stops, another takes over", arguments: TestBackend.enabled)
    func leaderService(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            try await Self.makeTable(database)
            let logger = Logger(label: "test")
            func service(_ holder: String) -> LeaderService {
                // Renewed every 2/3 s: ample under a loaded test machine.
                let lease = Lease(name: "test:leader", database: database, ttl: .seconds(2), holder: holder)
                return LeaderService(lease: lease, logger: logger) { lease in
                    while !Task.isCancelled {
                        try await Self.seal(lease, on: database)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            func holders() async throws -> [String] {
                try await database.read { try $0.query("SELECT DISTINCT holder FROM sealed ORDER BY holder").map { try $0.text("holder") } }
            }
            let (a, b) = (service("a"), service("b"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                // "a" starts first and leads; "b" waits.
                try await withThrowingTaskGroup(of: Void.self) { first in
                    first.addTask { try await a.run() }
                    // Waits for "a" to lead by what it wrote, not by a fixed time: a busy machine
                    // may take a while to start it.
                    let started = ContinuousClock.now + .seconds(20)
                    while try await holders().isEmpty, ContinuousClock.now < started { try await Task.sleep(for: .milliseconds(20)) }
                    group.addTask { try await b.run() }
                    try await Task.sleep(for: .milliseconds(500))
                    #expect(try await holders() == ["a"], "b waits while a leads")
                    first.cancelAll()  // "a" stops
                }
                let deadline = ContinuousClock.now + .seconds(20)
                while try await holders() != ["a", "b"], ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                #expect(try await holders() == ["a", "b"], "b took over")
                group.cancelAll()
            }
            // Fenced: in commit order, every write belongs to the newest epoch so far. (Two
            // instances may run the work at once for a moment; only one of them can commit.)
            let epochs = try await database.read { try $0.query("SELECT epoch FROM sealed ORDER BY seq").map { try $0.int("epoch") } }
            #expect(epochs == epochs.sorted())
        }
    }
}
