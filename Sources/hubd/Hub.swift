import HubKernel
import Logging
import Prometheus
import ServiceLifecycle

/// Everything one running hub is made of, built once at start-up and shared by the router and
/// the service group.
struct Hub: Sendable {
    let database: Database
    let ledger: Ledger
    let bus: EventBus
    let identity: Identity
    let webhooks: WebhookStore
    let webhookDispatcher: WebhookDispatcher
    /// Whether `POST /v1/auth/dev-login` exists (`HUB_DEV_LOGIN=1`).
    let devLogin: Bool
    /// Drops cached authentications after a revocation in this process.
    let credentialsChanged: @Sendable () -> Void
    let authenticator: any Authenticator
    let plugins: PluginHost
    let metrics: PrometheusCollectorRegistry
    let metricsFactory: PrometheusMetricsFactory
    let limiter: RateLimiter
    let idempotency: IdempotencyConfiguration
    let logger: Logger
    let userExists: @Sendable (String) async throws -> Bool

    /// Background work in start order; the HTTP server starts after all of these and stops first.
    var services: [any Service] {
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
