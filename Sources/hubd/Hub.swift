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
            + [bus, IdempotencyExpiryService(database: database, configuration: idempotency, logger: logger)]
            + plugins.services
    }
}
