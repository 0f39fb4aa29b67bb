import Foundation
import HubTestSupport
import Logging
import Testing

@testable import HubKernel

@Suite("Live streams' shared window of recent events, and their wakeups")
struct RecentEventsTests {
    static func record(_ sequence: Int64, _ type: String = "test.thing") -> EventRecord {
        EventRecord(sequence: sequence, id: "id-\(sequence)", type: type, source: "/test", subject: nil, time: "2026-11-28T00:00:00Z", data: "{}")
    }

    @Test("the window answers only for cursors it covers through the wanted end, with the filter and limit applied")
    func coverage() throws {
        let recent = RecentEvents(capacity: 100)
        #expect(recent.read(after: 0, through: 0, limit: 10, filter: EventFilter()) == nil, "covers nothing before a reset")
        recent.reset(at: 10)
        recent.append((11...20).map { Self.record($0, $0.isMultiple(of: 2) ? "test.even" : "test.odd") })
        #expect(recent.end == 20)

        let all = try #require(recent.read(after: 10, through: 20, limit: 100, filter: EventFilter()))
        #expect(all.entries.map(\.sequence) == Array(11...20))
        #expect(all.searchedThrough == 20)
        #expect(all.entries[0].message.hasPrefix("id: 11\nevent: test.odd\ndata: {"))
        #expect(all.entries[0].message.hasSuffix("}\n\n"))

        #expect(recent.read(after: 9, through: 20, limit: 100, filter: EventFilter()) == nil, "event 10 is not in the window")
        #expect(recent.read(after: 15, through: 21, limit: 100, filter: EventFilter()) == nil, "event 21 is not read yet")

        let even = try #require(EventFilter(["test.even"]))
        let evens = try #require(recent.read(after: 13, through: 20, limit: 100, filter: even))
        #expect(evens.entries.map(\.sequence) == [14, 16, 18, 20])
        let firstTwo = try #require(recent.read(after: 13, through: 20, limit: 2, filter: even))
        #expect(firstTwo.entries.map(\.sequence) == [14, 16])
        #expect(firstTwo.searchedThrough == 16, "a full page stops at its last event")

        let other = try #require(EventFilter(["other.*"]))
        let none = try #require(recent.read(after: 10, through: 20, limit: 100, filter: other))
        #expect(none.entries.isEmpty)
        #expect(none.searchedThrough == 20, "a cursor may pass events its filter skips")

        recent.clear()
        #expect(recent.read(after: 15, through: 20, limit: 100, filter: EventFilter()) == nil)
    }

    @Test("the window forgets its oldest events beyond its capacity and stays contiguous")
    func trimming() throws {
        let recent = RecentEvents(capacity: 4)
        recent.reset(at: 0)
        for sequence in Int64(1)...50 {
            recent.append([Self.record(sequence)])
            let newest = try #require(recent.read(after: max(0, sequence - 4), through: sequence, limit: 100, filter: EventFilter()))
            #expect(newest.entries.map(\.sequence) == Array(max(1, sequence - 3)...sequence))
        }
        #expect(recent.read(after: 30, through: 50, limit: 100, filter: EventFilter()) == nil)
    }

    @Test("wakeups merge: a heartbeat does not hide events signalled before it, and a stop stays")
    func wakeupsMerge() async {
        let wakeups = StreamWakeups()
        wakeups.events(through: 5)
        wakeups.heartbeat()
        wakeups.events(through: 7)
        #expect(wakeups.take() == StreamWakeups.Due(eventsThrough: 7, heartbeat: true))
        #expect(wakeups.take() == StreamWakeups.Due())
        wakeups.stop()
        wakeups.heartbeat()
        #expect(wakeups.take().stop)
        #expect(wakeups.take().stop)
    }

    @Test("the bus fills the window from the log while a stream is open, and only then", arguments: TestBackend.enabled)
    func busFillsWindow(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let before = try await database.write { try EventLog.append([Self.event("test.before")], on: $0) }
            let bus = EventBus(database: database, pollInterval: .seconds(3600), logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await bus.run() }
                bus.nudge()
                try await eventually("the bus reads the log") { bus.lastSequence == before }
                #expect(recent(bus) == nil, "no stream: no window")

                try await bus.withStreamSubscription { signals in
                    try await eventually("the window starts") { recent(bus) == before }
                    let last = try await database.write { try EventLog.append((1...3).map { Self.event("test.\($0)") }, on: $0) }
                    bus.nudge()
                    for await seen in signals where seen >= last { break }
                    // The signal comes after the window has the events.
                    let slice = try #require(bus.recent.read(after: before, through: last, limit: 10, filter: EventFilter()))
                    #expect(slice.entries.map(\.sequence) == Array((before + 1)...last))
                    #expect(slice.entries.map(\.type) == ["test.1", "test.2", "test.3"])
                }
                let after = try await database.write { try EventLog.append([Self.event("test.after")], on: $0) }
                bus.nudge()
                try await eventually("the bus sees the last event") { bus.lastSequence == after }
                #expect(recent(bus) == nil, "the last stream closed: the window is dropped")
                group.cancelAll()
            }
        }
    }

    @Test(
        "a commit's newest sequence reaches subscribers at once, without a read; with a stream open the window reads it first",
        arguments: TestBackend.enabled
    )
    func committedThrough(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let first = try await database.write { try EventLog.append([Self.event("test.first")], on: $0) }
            // No stream: the writer's word is taken as it is, before the call returns (the log
            // holds nothing past `first`, so a read could not have given `first + 7`).
            let trusting = EventBus(database: database, pollInterval: .seconds(3600), logger: Logger(label: "test"))
            trusting.committed(through: first)
            #expect(trusting.lastSequence == first)
            trusting.committed(through: first + 7)
            #expect(trusting.lastSequence == first + 7)
            trusting.committed(through: first + 2)
            #expect(trusting.lastSequence == first + 7, "never backwards")

            let bus = EventBus(database: database, pollInterval: .seconds(3600), logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await bus.run() }
                try await bus.withStreamSubscription { signals in
                    try await eventually("the window starts") { recent(bus) == first }
                    let last = try await database.write { try EventLog.append((1...9).map { Self.event("test.\($0)") }, on: $0) }
                    bus.committed(through: last)
                    for await seen in signals where seen >= last { break }
                    // The signal comes after the window has read the events from the log.
                    let slice = try #require(bus.recent.read(after: last - 2, through: last, limit: 10, filter: EventFilter()))
                    #expect(slice.entries.map(\.type) == ["test.8", "test.9"])
                }
                group.cancelAll()
            }
        }
    }

    private func recent(_ bus: EventBus) -> Int64? { bus.recent.end }

    static func event(_ type: String) -> NewEvent {
        NewEvent(type: type, source: "/test", subject: nil, data: "{}", time: LedgerClock.system.now())
    }

}
