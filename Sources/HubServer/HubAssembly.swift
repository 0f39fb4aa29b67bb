public import HubKernel
import Hummingbird
public import Logging
import Prometheus

/// Builds a ``Hub`` from the configuration: the kernel's parts, then the enabled plugins (whose
/// configuration errors stop start-up naming file, plugin and field), then the migrator over the
/// kernel's and the plugins' migrations.
public enum HubAssembly {
    /// Builds the kernel and the rails `pluginsFile` enables (among `builtIn`).
    /// - Parameters:
    ///   - secretsKeyFile: the vault's key file (``HubConfiguration/secretsKeyFile``); by default
    ///     ``HubConfiguration/defaultSecretsKeyFile(for:)``. The vault reads it in ``Hub/prepare()``, not here.
    ///   - authenticator: replaces the kernel's (cached) authenticator; tests pass a double here.
    /// - Throws: ``ConfigurationError`` naming the plugins file, plugin and field a rail refused.
    public static func make(
        database: Database,
        pluginsFile: PluginsFile,
        secretsKeyFile: String? = nil,
        builtIn: [any RailPlugin.Type] = BuiltInPlugins.all,
        ledgerConfiguration: LedgerConfiguration = .init(),
        idempotency: IdempotencyConfiguration = .init(),
        identityConfiguration: IdentityConfiguration = .init(),
        webhookConfiguration: WebhookConfiguration = .init(),
        devLogin: Bool = false,
        drain: Duration = .zero,
        clock: LedgerClock = .system,
        logger: Logger,
        authenticator: (any Authenticator)? = nil
    ) throws -> Hub {
        let registry = PrometheusCollectorRegistry()
        let metricsFactory = PrometheusMetricsFactory(registry: registry)
        let bus = EventBus(database: database, logger: logger)
        let ledger = Ledger(
            database: database,
            configuration: ledgerConfiguration,
            clock: clock,
            logger: logger,
            metrics: metricsFactory,
            onCommit: { [bus] lastEvent in bus.committed(through: lastEvent) }
        )
        let secrets = SecretsVault(
            database: database,
            keyFile: secretsKeyFile ?? HubConfiguration.defaultSecretsKeyFile(for: database.url),
            clock: clock,
            logger: logger
        )
        let identity = Identity(database: database, configuration: identityConfiguration, clock: clock, secrets: secrets, logger: logger)
        let hostedChains = HostedChainRegistry()
        let plugins: PluginHost
        do {
            plugins = try PluginHost(builtIn: builtIn, entries: pluginsFile.pluginEntries) { id in
                PluginContext(
                    pluginID: id,
                    ledger: ledger,
                    events: bus,
                    identity: identity,
                    logger: logger,
                    metrics: metricsFactory,
                    secrets: secrets,
                    hostedChains: hostedChains,
                    clock: clock,
                    developmentLogin: devLogin
                )
            }
        } catch let failure as PluginSetupError {
            throw pluginsFile.error(for: failure)
        }
        let webhookClient = CurlWebhookClient(addressPolicy: webhookConfiguration.addressPolicy)
        let webhooks = WebhookStore(
            database: database,
            secrets: secrets,
            client: webhookClient,
            configuration: webhookConfiguration,
            metrics: metricsFactory
        )
        let dispatcher = WebhookDispatcher(
            database: database,
            secrets: secrets,
            client: webhookClient,
            configuration: webhookConfiguration,
            metrics: metricsFactory,
            logger: logger
        )
        // Credentials checked in the last 2 s are not read again (see CachingAuthenticator); a
        // revocation empties the cache here at once, and in the other instances through
        // ClusterSignals.
        let cache = CachingAuthenticator(identity)
        let signals: ClusterSignals? =
            switch database.url {
            case .postgres(let uri):
                ClusterSignals(
                    uri: uri,
                    logger: logger,
                    onEvents: { [bus] lastEvent in bus.committed(through: lastEvent) },
                    onCredentials: { [cache] in cache.invalidateAll() }
                )
            case .sqlite: nil
            }
        return Hub(
            database: database,
            ledger: ledger,
            bus: bus,
            identity: identity,
            secrets: secrets,
            webhooks: webhooks,
            webhookDispatcher: dispatcher,
            devLogin: devLogin,
            credentialsChanged: { [cache] in
                cache.invalidateAll()
                do {
                    try await ClusterSignals.announce(.credentials, on: database)
                } catch {
                    logger.warning("could not tell other instances that credentials changed", metadata: ["error": "\(error)"])
                }
            },
            clusterSignals: signals,
            drain: Drain(delay: drain),
            authenticator: authenticator ?? cache,
            plugins: plugins,
            metrics: registry,
            metricsFactory: metricsFactory,
            limiter: RateLimiter(),
            idempotency: idempotency,
            logger: logger,
            userExists: { id in
                guard let id = UserID(id) else { return false }
                return try await identity.users.user(id) != nil
            }
        )
    }

    /// The kernel's migrations, then each running plugin's as its own group.
    public static func migrator(for hub: Hub) -> Migrator {
        Migrator([(group: .kernel, migrations: Ledger.migrations)] + hub.plugins.migrationGroups)
    }
}
