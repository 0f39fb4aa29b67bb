import Foundation
import HubTestSupport
import Synchronization
import Testing

@testable import HubKernel

/// Batched steps: the writer runs the queued requests of one step together, in arrival order,
/// under one savepoint; a batch that throws is rolled back and its members run again one by one,
/// each with its own `Idempotency-Key`.
@Suite("Batched steps", .timeLimit(.minutes(4)))
struct BatchedStepTests {
    struct Tip: Sendable {
        let name: String
        let amount: UInt128
        var fails = false
    }

    struct Failing: Error {}

    /// The members each run of the step saw, by name.
    final class Runs: Sendable {
        private let names = Mutex<[[String]]>([])
        func append(_ run: [String]) { names.withLock { $0.append(run) } }
        var all: [[String]] { names.withLock { $0 } }
    }

    /// A step that writes a note per member and moves each member's amount from `payer` to
    /// `payee` with a new transfer id read in one prefetch, recording the members each run saw.
    static func tipStep(payer: AccountID, payee: AccountID, asset: AssetCode, runs: Runs) -> BatchedStep<Tip, Bool> {
        BatchedStep { members in
            runs.append(members.map(\.request.name))
            let ids = members.map { _ in TransferID.timeOrdered() }
            var keys = LedgerKeys()
            keys.transfers.formUnion(ids)
            keys.accounts.formUnion([payer, payee])
            try members[0].unit.prefetch(keys)
            return try zip(members, ids).map { member, id in
                try member.unit.connection.executeDeferred("INSERT INTO tipjar_notes (name) VALUES (\(member.request.name))")
                let result = try member.unit.submit(
                    TransferRequest(id: id, action: .post(debit: payer, credit: payee, amount: member.request.amount, asset: asset))
                )
                try member.unit.answer(HTTPReply(status: 201, contentType: "text/plain", location: nil, body: Array(member.request.name.utf8)))
                if member.request.fails { throw Failing() }
                // A refusal is a result: the member is answered with it and the batch goes on.
                return result.transfer != nil
            }
        }
    }

    /// Holds the writer with one unit until `release`, so that what is queued meanwhile runs as
    /// one group.
    static func holdWriter(_ ledger: Ledger) async throws -> (release: @Sendable () -> Void, done: Task<Void, any Error>) {
        let started = Atomic<Bool>(false)
        let gate = DispatchSemaphore(value: 0)
        let holding = Task {
            try await ledger.write(as: .kernel) { _ in
                started.store(true, ordering: .sequentiallyConsistent)
                gate.wait()
            }
        }
        while !started.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(2)) }
        return ({ gate.signal() }, holding)
    }

    /// Queues `body` and waits until the writer holds it, so that queued work keeps its order.
    static func queue<Value: Sendable>(_ ledger: Ledger, _ body: @escaping @Sendable () async throws -> Value) async throws -> Task<Value, any Error>
    {
        let waiting = ledger.writer.queuedCount
        let task = Task { try await body() }
        while ledger.writer.queuedCount == waiting { try await Task.sleep(for: .milliseconds(2)) }
        return task
    }

    /// A ledger with the notes table, alice holding 100 USD, and the tip step paying bob.
    struct TipJar: Sendable {
        let ledger: Ledger
        let bob: Account
        let runs: Runs
        let step: BatchedStep<Tip, Bool>

        /// Queues `tip` with the `Idempotency-Key` `key` and waits until the writer holds it.
        func queue(_ tip: Tip, key: String) async throws -> Task<Bool, any Error> {
            try await BatchedStepTests.queue(ledger) { [ledger, step] in
                try await IdempotencyClaim.$current.withValue(BatchedStepTests.claim(ledger, key: key)) {
                    try await ledger.write(as: .tipjar, tip, batchedIn: step)
                }
            }
        }
    }

    static func withTipJar(on backend: TestBackend, _ body: @Sendable (TipJar) async throws -> Void) async throws {
        try await withLedger(on: backend) { ledger in
            try await UnitOfWorkTests.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            let runs = Runs()
            try await body(
                TipJar(ledger: ledger, bob: bob, runs: runs, step: Self.tipStep(payer: alice.id, payee: bob.id, asset: usd.code, runs: runs))
            )
        }
    }

    static func claim(_ ledger: Ledger, key: String) -> IdempotencyClaim {
        IdempotencyClaim(scope: "user:test", key: key, requestHash: [1], clock: ledger.clock, retention: .seconds(3600), replyForError: { _ in nil })
    }

    static func recordedKeys(_ ledger: Ledger) async throws -> [String: String] {
        try await ledger.database.read { connection in
            try connection.query("SELECT key, body FROM hub_idempotency_keys").reduce(into: [:]) { keys, row in
                keys[try row.text("key")] = String(decoding: try row.bytes("body"), as: UTF8.self)
            }
        }
    }

    @Test("the queued requests of one step run as one batch in arrival order; other units keep their own", arguments: TestBackend.enabled)
    func queuedMembersRunTogether(backend: TestBackend) async throws {
        try await Self.withTipJar(on: backend) { jar in
            let (ledger, bob, runs) = (jar.ledger, jar.bob, jar.runs)
            let (release, holding) = try await Self.holdWriter(ledger)
            var members: [Task<Bool, any Error>] = []
            for index in 0..<6 {
                // The fourth asks for more than alice has left: refused, not failed.
                members.append(try await jar.queue(Tip(name: "tip-\(index)", amount: index == 3 ? 90 : 10), key: "tip-\(index)"))
                if index == 2 {
                    // A plain unit between members runs on its own.
                    _ = try await Self.queue(ledger) {
                        try await ledger.write(as: .tipjar) { unit in
                            try unit.connection.execute("INSERT INTO tipjar_notes (name) VALUES ('plain')")
                        }
                    }
                }
            }
            release()
            try await holding.value
            var moved: [Bool] = []
            for member in members { moved.append(try await member.value) }

            #expect(moved == [true, true, true, false, true, true])
            #expect(runs.all == [(0..<6).map { "tip-\($0)" }])
            #expect(try await UnitOfWorkTests.notes(ledger) == ["plain"] + (0..<6).map { "tip-\($0)" })
            #expect(try await ledger.balance(bob).available == 50)
            #expect(try await Self.recordedKeys(ledger) == Dictionary(uniqueKeysWithValues: (0..<6).map { ("tip-\($0)", "tip-\($0)") }))
            try await ledger.expectVerified()
        }
    }

    @Test("a member that throws fails alone: the batch rolls back and its members run one by one, keys and all", arguments: TestBackend.enabled)
    func failingMemberFailsAlone(backend: TestBackend) async throws {
        try await Self.withTipJar(on: backend) { jar in
            let (ledger, bob, runs) = (jar.ledger, jar.bob, jar.runs)
            let (release, holding) = try await Self.holdWriter(ledger)
            var members: [Task<Bool, any Error>] = []
            for index in 0..<4 {
                members.append(try await jar.queue(Tip(name: "tip-\(index)", amount: 10, fails: index == 1), key: "tip-\(index)"))
            }
            release()
            try await holding.value
            #expect(try await members[0].value)
            await #expect(throws: Failing.self) { try await members[1].value }
            #expect(try await members[2].value)
            #expect(try await members[3].value)

            // Once together, then each alone.
            #expect(runs.all == [["tip-0", "tip-1", "tip-2", "tip-3"], ["tip-0"], ["tip-1"], ["tip-2"], ["tip-3"]])
            #expect(try await UnitOfWorkTests.notes(ledger) == ["tip-0", "tip-2", "tip-3"])
            #expect(try await ledger.balance(bob).available == 30)
            // The members' keys were taken in the rolled-back batch and taken again alone.
            #expect(try await Self.recordedKeys(ledger) == ["tip-0": "tip-0", "tip-2": "tip-2", "tip-3": "tip-3"])
            let (sequences, transfers) = try await ledger.database.read { connection in
                (
                    try connection.query("SELECT sequence FROM hub_events ORDER BY sequence").map { try $0.int("sequence") },
                    try connection.queryFirst("SELECT count(*) AS n FROM ledger_transfers")?.int("n")
                )
            }
            #expect(sequences == Array(1...Int64(sequences.count)))
            #expect(transfers == 4)  // the mint and three tips
            try await ledger.expectVerified()
        }
    }

    @Test(
        "answers are recorded together; a key held by another request, or named twice, sends the batch member by member",
        arguments: TestBackend.enabled
    )
    func answersRecordedTogether(backend: TestBackend) async throws {
        try await Self.withTipJar(on: backend) { jar in
            let (ledger, bob, runs) = (jar.ledger, jar.bob, jar.runs)
            // Another instance answered "held" first, for the same request.
            let stored = HTTPReply(status: 201, contentType: "text/plain", location: nil, body: Array("first".utf8))
            _ = try await ledger.database.write { connection in
                try IdempotencyStore.record(
                    scope: "user:test",
                    key: "held",
                    requestHash: [1],
                    reply: stored,
                    now: ledger.clock.now(),
                    cutoff: LedgerTimestamp(nanoseconds: 0),
                    on: connection
                )
            }
            // A key another request holds; a key two members of one batch name.
            for (scenario, keys) in [["a", "held", "b"], ["c", "twice", "twice"]].enumerated() {
                let names = keys.indices.map { "s\(scenario)-\($0)" }
                let runsBefore = runs.all.count
                let (release, holding) = try await Self.holdWriter(ledger)
                var members: [Task<Bool, any Error>] = []
                for (key, name) in zip(keys, names) {
                    members.append(try await jar.queue(Tip(name: name, amount: 10), key: key))
                }
                release()
                try await holding.value
                var replayed: [String] = []
                var committed: [Int] = []
                for (index, member) in members.enumerated() {
                    do {
                        if try await member.value { committed.append(index) }
                    } catch IdempotencyConflict.replay(let reply) {
                        replayed.append(String(decoding: reply.body, as: UTF8.self))
                    }
                }
                // Once together, then each alone; the member whose key was taken replays what
                // its key holds: the stored reply, or the first "twice"'s.
                #expect(Array(runs.all.dropFirst(runsBefore)) == [names] + names.map { [$0] })
                #expect(committed == (scenario == 0 ? [0, 2] : [0, 1]))
                #expect(replayed == (scenario == 0 ? ["first"] : ["s1-1"]))
            }
            #expect(try await UnitOfWorkTests.notes(ledger) == ["s0-0", "s0-2", "s1-0", "s1-1"])
            #expect(try await Self.recordedKeys(ledger) == ["a": "s0-0", "held": "first", "b": "s0-2", "c": "s1-0", "twice": "s1-1"])
            #expect(try await ledger.balance(bob).available == 40)
            try await ledger.expectVerified()
        }
    }

    @Test("a transfer id a prefetch found absent is created without another read; one found present is an `exists`", arguments: TestBackend.enabled)
    func prefetchRemembersAbsentIDs(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            let earlier = TransferRequest(id: .timeOrdered(), action: .post(debit: alice.id, credit: bob.id, amount: 5, asset: usd.code))
            _ = try await ledger.submit([earlier])
            let fresh = TransferRequest(id: .timeOrdered(), action: .post(debit: alice.id, credit: bob.id, amount: 7, asset: usd.code))
            let (absent, results) = try await ledger.write { unit in
                var keys = LedgerKeys()
                keys.add(fresh)
                keys.add(earlier)
                try unit.prefetch(keys)
                let absent = unit.database.activeTransaction?.ledger?.absentTransfers
                return (absent, try unit.submit([fresh, earlier]))
            }
            #expect(absent == [fresh.id])
            guard case .created = results[0], case .exists = results[1] else {
                Issue.record("expected the fresh transfer created and the earlier one to exist: \(results)")
                return
            }
            #expect(try await ledger.balance(bob).available == 12)
            try await ledger.expectVerified()
        }
    }
}
