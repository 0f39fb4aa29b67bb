public import HubKernel
public import Logging
public import Prometheus
public import ServiceLifecycle

/// Everything one running hub is made of, built once at start-up and shared by the router and
/// the service group.
public struct Hub: Sendable {
    public let database: Database
    public let ledger: Ledger
    public let bus: EventBus
    public let identity: Identity
    public let webhooks: WebhookStore
    public let webhookDispatcher: WebhookDispatcher
    /// Whether `POST /v1/auth/dev-login` exists (`HUB_DEV_LOGIN=1`).
    public let devLogin: Bool
    /// Drops cached authentications after a revocation in this process.
    public let credentialsChanged: @Sendable () -> Void
    public let authenticator: any Authenticator
    public let plugins: PluginHost
    public let metrics: PrometheusCollectorRegistry
    public let metricsFactory: PrometheusMetricsFactory
    public let limiter: RateLimiter
    public let idempotency: IdempotencyConfiguration
    public let logger: Logger
    public let userExists: @Sendable (String) async throws -> Bool

    /// Background work in start order; the HTTP server starts after all of these and stops first.
    public var services: [any Service] {
        ledger.services
            + [
                bus,
                webhookDispatcher,
                EventBusForwarder(bus: bus, nudge: { [webhookDispatcher] in webhookDispatcher.nudge() }),
                IdempotencyExpiryService(database: database, configuration: idempotency, logger: logger),
                IdentityMaintenanceService(identity: identity, logger: logger),
            ]
            + plugins.services
    }
}

/// Wakes a consumer (the webhook dispatcher) whenever the event bus sees the log grow, so
/// deliveries start at once instead of at the consumer's next poll.
struct EventBusForwarder: Service {
    let bus: EventBus
    let nudge: @Sendable () -> Void

    func run() async throws {
        await bus.withSubscription { signals in
            for await _ in signals.cancelOnGracefulShutdown() { nudge() }
        }
    }
}
