import Foundation
import HubKernel
import HubTestSupport
import Logging
import Metrics
import ServiceLifecycle
import Testing

/// Everything a dispatcher test needs: a migrated database, a store, a running dispatcher and a
/// loopback receiver.
struct WebhookHarness {
    let database: Database
    let secrets: SecretsVault
    let store: WebhookStore
    let dispatcher: WebhookDispatcher
    let receiver: WebhookReceiver

    /// A short schedule so that retries and giving up happen within a test: three retries.
    static var testConfiguration: WebhookConfiguration {
        var configuration = WebhookConfiguration()
        configuration.retrySchedule = [.milliseconds(50), .milliseconds(100), .milliseconds(150)]
        configuration.retryJitter = 0
        configuration.pollInterval = .milliseconds(50)
        configuration.requestTimeout = .seconds(10)
        configuration.maxConcurrentEndpoints = 4
        configuration.addressPolicy = .testReceivers
        return configuration
    }

    /// Appends one event per type, as a producer would inside its transaction, then nudges.
    @discardableResult
    func append(_ types: [String], nudge: Bool = true) async throws -> Int64 {
        let events = types.enumerated().map { index, type in
            NewEvent(
                type: type,
                source: "/tests",
                subject: "s-\(index)",
                data: #"{"index":\#(index),"memo":"caf\u00e9 ✓"}"#,
                time: LedgerClock.system.now()
            )
        }
        let last = try await database.write { try EventLog.append(events, on: $0) }
        if nudge { dispatcher.nudge() }
        return last
    }

    /// Creates an endpoint that posts to the receiver's `name` path, and tells the receiver its
    /// secret so every request's signature is checked.
    func endpoint(_ name: String, eventTypes: [String] = [], enabled: Bool = true) async throws -> WebhookEndpoint {
        let endpoint = try await store.create(NewWebhookEndpoint(url: receiver.url(name), eventTypes: eventTypes, enabled: enabled))
        receiver.setSecret(try #require(endpoint.secret), for: name)
        return endpoint
    }

    /// Waits until the endpoint's cursor has reached the end of the log.
    func caughtUp(_ endpoint: WebhookEndpoint, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await eventually("endpoint \(endpoint.url) to catch up", sourceLocation: sourceLocation) {
            try await store.status(endpoint.id).lag == 0
        }
    }

    /// All recorded attempts of an endpoint, oldest first.
    func deliveries(_ endpoint: WebhookEndpoint) async throws -> [WebhookDelivery] {
        var all: [WebhookDelivery] = []
        var cursor: String?
        repeat {
            let page = try await store.deliveries(endpointID: endpoint.id, cursor: cursor, limit: 100)
            all += page.deliveries
            cursor = page.nextCursor
        } while cursor != nil
        return all.reversed()
    }
}

var webhookTestLogger: Logger {
    var logger = Logger(label: "webhook-tests")
    logger.logLevel = .notice
    return logger
}

/// Runs `body` with a migrated database on `backend`, a loopback receiver and a dispatcher
/// running as a service; shuts the dispatcher down gracefully afterwards.
func withWebhooks(
    on backend: TestBackend,
    configuration: WebhookConfiguration = WebhookHarness.testConfiguration,
    metrics: (any MetricsFactory)? = nil,
    clock: WebhookClock = .system,
    _ body: (WebhookHarness) async throws -> Void
) async throws {
    try await withDatabase(on: backend) { database in
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
        let secrets = try await preparedTestVault(database)
        defer { try? FileManager.default.removeItem(atPath: (secrets.keyFile as NSString).deletingLastPathComponent) }
        try await WebhookReceiver.run { receiver in
            let client = CurlWebhookClient(threadCount: configuration.maxConcurrentEndpoints, addressPolicy: configuration.addressPolicy)
            let dispatcher = WebhookDispatcher(
                database: database,
                secrets: secrets,
                client: client,
                configuration: configuration,
                clock: clock,
                metrics: metrics,
                logger: webhookTestLogger
            )
            let store = WebhookStore(database: database, secrets: secrets, client: client, configuration: configuration, clock: clock)
            let harness = WebhookHarness(database: database, secrets: secrets, store: store, dispatcher: dispatcher, receiver: receiver)
            let group = ServiceGroup(services: [dispatcher], gracefulShutdownSignals: [], logger: webhookTestLogger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                do {
                    try await body(harness)
                } catch {
                    receiver.release()
                    await group.triggerGracefulShutdown()
                    throw error
                }
                receiver.release()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }
}
