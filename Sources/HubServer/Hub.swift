public import HubKernel
public import Logging
public import Prometheus
public import ServiceLifecycle

/// Everything one running hub is made of, built once at start-up by ``HubAssembly`` and shared by
/// the router and the service group.
///
/// Its parts are public so that a test or an embedding program can reach the ledger, identity
/// and the running rails of the hub it built; only ``HubAssembly`` makes one.
public struct Hub: Sendable {
    /// The database every part reads and writes.
    public let database: Database
    /// The double-entry ledger (its writer is among ``services``).
    public let ledger: Ledger
    /// The event log's in-process bus.
    public let bus: EventBus
    /// Users, credentials and wallet sign-in.
    public let identity: Identity
    /// The secrets vault (JWT keys, webhook secrets, rails' keys); ``prepare()`` opens it.
    public let secrets: SecretsVault
    /// Webhook endpoints and their deliveries.
    public let webhooks: WebhookStore
    /// Delivers webhooks in the background (among ``services``).
    public let webhookDispatcher: WebhookDispatcher
    /// Whether `POST /v1/auth/dev-login` exists (`HUB_DEV_LOGIN=1`).
    public let devLogin: Bool
    /// Drops cached authentications after a revocation, here and (on PostgreSQL) in every other
    /// instance.
    public let credentialsChanged: @Sendable () async -> Void
    /// `LISTEN`/`NOTIFY` with the other instances on the same PostgreSQL; `nil` on SQLite.
    public let clusterSignals: ClusterSignals?
    /// Readiness turned off first when the hub stops (`hubd serve` runs it after the server).
    public let drain: Drain
    /// Turns a bearer credential into a principal (cached, unless a test supplied its own).
    public let authenticator: any Authenticator
    /// The running rails.
    public let plugins: PluginHost
    /// The Prometheus registry `GET /metrics` serves.
    public let metrics: PrometheusCollectorRegistry
    /// The metrics factory the kernel and the rails record into.
    public let metricsFactory: PrometheusMetricsFactory
    /// Limits unauthenticated endpoints (sign-in, bootstrap).
    public let limiter: RateLimiter
    /// How long `Idempotency-Key`s are kept.
    public let idempotency: IdempotencyConfiguration
    /// The hub's logger, handed to the kernel and every rail.
    public let logger: Logger
    /// Whether a user id names an existing user (the ledger API checks wallet owners with it).
    public let userExists: @Sendable (String) async throws -> Bool

    /// What runs once after migrations and before anything serves: the secrets vault loads its
    /// key file (creating it on a new hub) and the keys rails declared, then webhook secrets of
    /// before the vault move into it (all in one transaction).
    public func prepare() async throws {
        try await secrets.prepare()
        let moved = try await webhooks.moveSecretsIntoVault()
        if moved > 0 { logger.notice("moved webhook secrets into the secrets vault", metadata: ["hub.webhooks.endpoints": "\(moved)"]) }
    }

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
            + (clusterSignals.map { [$0] } ?? [])
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
