import Foundation
import HubTestSupport
import ServiceLifecycle
import Synchronization
import Testing

@testable import HubKernel

@Suite("Webhook dispatcher")
struct WebhookDispatcherTests {
    @Test("events arrive signed, in sequence order, exactly once", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func deliversInOrderOnce(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            try await hub.append(["before.creation"])
            let endpoint = try await hub.endpoint("a")
            // Several transactions, nudged and not, so the dispatcher sees them in more than one batch.
            var last: Int64 = 0
            for batch in 0..<4 { last = try await hub.append((0..<5).map { "test.batch\(batch).e\($0)" }, nudge: batch % 2 == 0) }
            try await hub.caughtUp(endpoint)

            let received = hub.receiver.received("a")
            #expect(received.map(\.sequence) == (2...last).map { Optional($0) })
            #expect(received.allSatisfy { $0.signatureValid == true })
            #expect(received.allSatisfy { $0.headers["content-type"] == "application/json" })
            let events = try await hub.database.read { try EventLog.read(after: 1, limit: 100, on: $0) }
            #expect(received.map(\.webhookID) == events.map { Optional($0.id) })
            // The body is the CloudEvents envelope around the stored data, byte for byte.
            let first = try #require(try JSONSerialization.jsonObject(with: Data(received[0].body)) as? [String: Any])
            #expect(first["specversion"] as? String == "1.0")
            #expect(first["type"] as? String == events[0].type)
            #expect(first["time"] as? String == events[0].time)
            #expect(String(decoding: received[0].body, as: UTF8.self).hasSuffix(#","data":\#(events[0].data)}"#))

            let deliveries = try await hub.deliveries(endpoint)
            #expect(deliveries.count == received.count)
            #expect(deliveries.allSatisfy { $0.outcome == .succeeded && $0.attempt == 1 && !$0.manual && $0.responseStatus == 200 })
            #expect(deliveries.map(\.eventSequence) == Array(2...last))
            let status = try await hub.store.status(endpoint.id)
            #expect(status.cursor == last && status.lag == 0 && status.consecutiveFailures == 0 && status.nextAttemptAt == nil)
        }
    }

    @Test(
        "a receiver down for a while gets every event, in order, with the failures recorded",
        .timeLimit(.minutes(3)),
        arguments: TestBackend.enabled
    )
    func retriesUntilTheReceiverComesBack(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            hub.receiver.failNext(3, status: 503)
            let last = try await hub.append(["t.one", "t.two", "t.three"])
            try await hub.caughtUp(endpoint)

            let received = hub.receiver.received("a")
            // Head-of-line blocking: the first event is retried until it succeeds, then the rest follow.
            #expect(received.map(\.sequence) == [1, 1, 1, 1, 2, 3])
            #expect(Set(received.prefix(4).map(\.webhookID)).count == 1, "retries carry the event's id, for the receiver to dedupe")
            #expect(received.allSatisfy { $0.signatureValid == true })

            let deliveries = try await hub.deliveries(endpoint)
            #expect(deliveries.map(\.eventSequence) == [1, 1, 1, 1, 2, 3])
            #expect(deliveries.map(\.attempt) == [1, 2, 3, 4, 1, 1])
            #expect(deliveries.map(\.outcome) == [.failed, .failed, .failed, .succeeded, .succeeded, .succeeded])
            #expect(deliveries.prefix(3).allSatisfy { $0.responseStatus == 503 && $0.error == "HTTP 503" && $0.responseBody == "down" })
            #expect(deliveries.allSatisfy { !$0.gaveUp })
            // Retries wait at least the schedule's 50, 100 and 150 ms.
            for (index, wait) in [50, 100, 150].enumerated() {
                let gap = deliveries[index + 1].startedAt.nanoseconds - deliveries[index].startedAt.nanoseconds
                #expect(gap >= UInt64(wait) * 1_000_000)
            }
            let status = try await hub.store.status(endpoint.id)
            #expect(status.cursor == last && status.failedPermanently == 0 && status.consecutiveFailures == 0 && status.headAttempts == 0)
        }
    }

    @Test("after the last retry the event is given up, and the next one is delivered", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func givesUpAndMovesOn(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            // The schedule has three waits: four attempts in all.
            hub.receiver.failNext(4)
            try await hub.append(["t.doomed", "t.next"])
            try await hub.caughtUp(endpoint)

            #expect(hub.receiver.received("a").map(\.sequence) == [1, 1, 1, 1, 2])
            let deliveries = try await hub.deliveries(endpoint)
            #expect(deliveries.map(\.attempt) == [1, 2, 3, 4, 1])
            #expect(deliveries.map(\.gaveUp) == [false, false, false, true, false])
            #expect(deliveries.last?.outcome == .succeeded)
            let status = try await hub.store.status(endpoint.id)
            #expect(status.failedPermanently == 1)
            #expect(status.cursor == 2 && status.consecutiveFailures == 0)
            #expect(status.lastDelivery?.eventSequence == 2)
        }
    }

    @Test(
        "an unreachable endpoint records transport errors without holding up another endpoint",
        .timeLimit(.minutes(3)),
        arguments: TestBackend.enabled
    )
    func unreachableEndpointIsIndependent(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            // Nothing listens on port 1 of the loopback interface: connections are refused.
            let dead = try await hub.store.create(NewWebhookEndpoint(url: "http://127.0.0.1:1/hook"))
            let live = try await hub.endpoint("live")
            let last = try await hub.append(["t.a", "t.b"])
            try await hub.caughtUp(live)
            try await hub.caughtUp(dead)

            #expect(hub.receiver.received("live").map(\.sequence) == [1, 2])
            let failures = try await hub.deliveries(dead)
            #expect(failures.count == 8)
            #expect(failures.allSatisfy { $0.outcome == .failed && $0.responseStatus == nil && $0.error?.isEmpty == false })
            #expect(failures.filter(\.gaveUp).map(\.eventSequence) == [1, 2])
            let status = try await hub.store.status(dead.id)
            #expect(status.failedPermanently == 2 && status.consecutiveFailures == 8 && status.cursor == last)
        }
    }

    @Test("retries wait for the injected clock to reach their time", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func retriesFollowTheInjectedClock(backend: TestBackend) async throws {
        let start = LedgerClock.system.now().nanoseconds
        let manual = ManualClock(start: start)
        let sleeps = Atomic<Int>(0)
        let clock = WebhookClock(now: manual.ledgerClock.now) { duration in
            sleeps.add(1, ordering: .relaxed)
            try await Task.sleep(for: duration)
        }
        var configuration = WebhookHarness.testConfiguration
        configuration.retrySchedule = [.seconds(3600)]
        try await withWebhooks(on: backend, configuration: configuration, clock: clock) { hub in
            let endpoint = try await hub.store.create(NewWebhookEndpoint(url: hub.receiver.url("a")))
            hub.receiver.failNext(1)
            try await hub.append(["t.a"])
            try await eventually("the first attempt to be recorded") { try await hub.store.status(endpoint.id).headAttempts == 1 }
            let waiting = try await hub.store.status(endpoint.id)
            #expect(waiting.nextAttemptAt == LedgerTimestamp(nanoseconds: start + 3600 * 1_000_000_000))
            #expect(hub.receiver.received("a")[0].headers["webhook-timestamp"] == String(start / 1_000_000_000))

            // Several polls go by on the real clock; the injected one has not moved, so no retry.
            let seen = sleeps.load(ordering: .relaxed)
            try await eventually("a few polls") { sleeps.load(ordering: .relaxed) >= seen + 5 }
            #expect(hub.receiver.received("a").count == 1)

            manual.advance(seconds: 3600)
            hub.dispatcher.nudge()
            try await hub.caughtUp(endpoint)
            let received = hub.receiver.received("a")
            #expect(received.count == 2)
            #expect(received[1].headers["webhook-timestamp"] == String(start / 1_000_000_000 + 3600))
            #expect(try await hub.deliveries(endpoint).map(\.attempt) == [1, 2])
        }
    }

    @Test("one held receiver does not delay another endpoint", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func slowEndpointDoesNotBlockOthers(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let slow = try await hub.endpoint("slow")
            try await hub.append(["t.first"])
            try await hub.caughtUp(slow)
            // The slow receiver now takes the next request and does not answer it.
            hub.receiver.hold("slow")
            try await hub.append(["t.second"])
            try await eventually("the slow receiver to hold a request") { hub.receiver.received("slow").count == 2 }

            let fast = try await hub.endpoint("fast")
            try await hub.append(["t.third", "t.fourth"])
            try await hub.caughtUp(fast)
            #expect(hub.receiver.received("fast").map(\.sequence) == [3, 4])
            #expect(try await hub.store.status(slow.id).cursor == 1, "the slow endpoint is still waiting on event 2")
            #expect(hub.receiver.received("slow").count == 2)

            hub.receiver.release()
            try await hub.caughtUp(slow)
            #expect(hub.receiver.received("slow").map(\.sequence) == [1, 2, 3, 4])
        }
    }

    @Test("filters deliver only the matching types and skip the rest", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func filtersByTypeAndPrefix(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a", eventTypes: ["ledger.transfer.*", "identity.user.created"])
            try await hub.append([
                "ledger.transfer.posted", "ledger.account.created", "identity.user.created", "identity.user.deleted",
                "ledger.transfer.pending.voided", "ledger.transfer", "ledger.transfers.posted",
            ])
            try await hub.append(["ledger.account.created", "other.thing"])
            try await hub.caughtUp(endpoint)

            let received = hub.receiver.received("a")
            #expect(received.map(\.type) == ["ledger.transfer.posted", "identity.user.created", "ledger.transfer.pending.voided"])
            #expect(received.map(\.sequence) == [1, 3, 5])
            #expect(try await hub.deliveries(endpoint).map(\.eventSequence) == [1, 3, 5])
            #expect(try await hub.store.status(endpoint.id).cursor == 9)
        }
    }

    @Test(
        "a disabled endpoint receives nothing until it is enabled, then catches up in order",
        .timeLimit(.minutes(3)),
        arguments: TestBackend.enabled
    )
    func disabledEndpointWaits(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let paused = try await hub.endpoint("paused", enabled: false)
            let control = try await hub.endpoint("control")
            let last = try await hub.append(["t.a", "t.b", "t.c"])
            // The control endpoint shows the dispatcher has seen every event.
            try await hub.caughtUp(control)
            #expect(hub.receiver.received("paused").isEmpty)
            #expect(try await hub.store.status(paused.id).lag == last)

            _ = try await hub.store.update(paused.id, WebhookEndpointUpdate(enabled: true))
            hub.dispatcher.nudge()
            try await hub.caughtUp(paused)
            #expect(hub.receiver.received("paused").map(\.sequence) == [1, 2, 3])
        }
    }

    @Test("two dispatchers on one database deliver each event once, in order", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func twoDispatchersShareTheWork(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            // A second dispatcher, as another hub process would run against the same database.
            let second = WebhookDispatcher(
                database: hub.database,
                secrets: hub.secrets,
                client: CurlWebhookClient(threadCount: 2, addressPolicy: .testReceivers),
                configuration: WebhookHarness.testConfiguration,
                logger: webhookTestLogger
            )
            try await testGracefulShutdownOf(second) { trigger in
                let endpoints = [try await hub.endpoint("a"), try await hub.endpoint("b"), try await hub.endpoint("c")]
                var last: Int64 = 0
                for round in 0..<10 {
                    last = try await hub.append(["t.r\(round).x", "t.r\(round).y"], nudge: false)
                    if round % 2 == 0 { hub.dispatcher.nudge() } else { second.nudge() }
                }
                for endpoint in endpoints { try await hub.caughtUp(endpoint) }
                await trigger()
                for name in ["a", "b", "c"] {
                    #expect(hub.receiver.received(name).map(\.sequence) == (1...last).map { Optional($0) }, "\(name)")
                }
            }
        }
    }

    @Test("graceful shutdown lets the attempt in flight finish and records it", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func gracefulShutdownFinishesInFlightAttempt(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let secrets = try await preparedTestVault(database)
            defer { try? FileManager.default.removeItem(atPath: (secrets.keyFile as NSString).deletingLastPathComponent) }
            try await WebhookReceiver.run { receiver in
                let client = CurlWebhookClient(threadCount: 2, addressPolicy: .testReceivers)
                let configuration = WebhookHarness.testConfiguration
                let store = WebhookStore(database: database, secrets: secrets, client: client, configuration: configuration)
                let dispatcher = WebhookDispatcher(
                    database: database,
                    secrets: secrets,
                    client: client,
                    configuration: configuration,
                    logger: webhookTestLogger
                )
                let endpoint = try await store.create(NewWebhookEndpoint(url: receiver.url("a")))
                receiver.hold("a")
                _ = try await database.write {
                    try EventLog.append(
                        [
                            NewEvent(type: "t.a", source: "/tests", subject: nil, data: "{}", time: LedgerClock.system.now()),
                            NewEvent(type: "t.b", source: "/tests", subject: nil, data: "{}", time: LedgerClock.system.now()),
                        ],
                        on: $0
                    )
                }
                try await testGracefulShutdownOf(dispatcher) { trigger in
                    try await eventually("the first request to arrive") { receiver.received("a").count == 1 }
                    await trigger()
                    // The group signals the shutdown to its services after `trigger` returns: let
                    // the dispatcher see it before the held attempt ends, or it may start the next.
                    try await eventually("the dispatcher to see the shutdown") { dispatcher.isStopping }
                    receiver.release()
                }
                // The held attempt completed and was recorded; the second event was not started.
                #expect(receiver.received("a").count == 1)
                let status = try await store.status(endpoint.id)
                #expect(status.cursor == 1)
                #expect(status.lastDelivery?.outcome == .succeeded)
            }
        }
    }
}

/// Runs `service` in a service group until `body` calls its trigger for a graceful shutdown, and
/// returns once the service has returned.
func testGracefulShutdownOf(_ service: some Service, _ body: (@escaping @Sendable () async -> Void) async throws -> Void) async throws {
    let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: webhookTestLogger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            try await body { await group.triggerGracefulShutdown() }
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        try await tasks.waitForAll()
    }
}
