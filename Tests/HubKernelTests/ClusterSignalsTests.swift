import Foundation
import HubTestSupport
import Logging
import Synchronization
import Testing

@testable import HubKernel

/// Two hubd processes on one PostgreSQL: what one commits wakes the other at once.
@Suite("Cluster signals (PostgreSQL LISTEN/NOTIFY)", .timeLimit(.minutes(3)))
struct ClusterSignalsTests {
    @Test(
        "an event committed through one instance reaches the other's bus without its poll, naming its sequence; credentials changes reach it too",
        arguments: TestBackend.enabled.filter { $0 == .postgres }
    )
    func twoInstances(backend: TestBackend) async throws {
        let test = try await TestDatabase.make(backend)
        guard case .postgres(let uri) = test.url else { return }
        let first = try await Database.open(test.url, readerCount: 1)
        let second = try await Database.open(test.url, readerCount: 1)
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(first)
        let logger = Logger(label: "test")
        // The second instance would poll once an hour: only a signal can wake it in time.
        let bus = EventBus(database: second, pollInterval: .seconds(3600), logger: logger)
        let credentials = Atomic<Int>(0)
        let named = Mutex<[Int64?]>([])
        let signals = ClusterSignals(
            uri: uri,
            logger: logger,
            onEvents: { lastEvent in
                named.withLock { $0.append(lastEvent) }
                bus.committed(through: lastEvent)
            },
            onCredentials: { credentials.add(1, ordering: .relaxed) }
        )
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await bus.run() }
                group.addTask { try await signals.run() }
                // Connected and listening: a connection reports both signals once.
                try await waitUntil("the listener connects") { signals.count(.credentials) >= 1 }
                let credentialsBefore = credentials.load(ordering: .relaxed)

                // An append in the other instance's transaction signals at its commit.
                let sequence = try await first.write { try EventLog.append([Self.event("test.committed")], on: $0) }
                await bus.withSubscription { stream in
                    for await seen in stream where seen >= sequence { return }
                }
                #expect(bus.lastSequence == sequence)
                // The notification names the commit's newest event: the bus needs no read.
                #expect(named.withLock { $0.last } == .some(sequence))

                try await ClusterSignals.announce(.credentials, on: first)
                try await waitUntil("the credentials signal") { credentials.load(ordering: .relaxed) > credentialsBefore }
                group.cancelAll()
            }
        } catch {
            await first.close()
            await second.close()
            await test.cleanup()
            throw error
        }
        await first.close()
        await second.close()
        await test.cleanup()
    }

    static func event(_ type: String) -> NewEvent {
        NewEvent(type: type, source: "/test", subject: nil, data: "{}", time: LedgerClock.system.now())
    }

    struct TimedOut: Error { var what: String }

    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
