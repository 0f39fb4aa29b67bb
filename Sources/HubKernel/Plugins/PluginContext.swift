import Foundation
public import Logging
public import Metrics

/// What the kernel hands a rail (DESIGN §3.5): the ledger, identity (to register wallet
/// signature schemes and look up users), the event bus, its own storage namespace, a logger,
/// metrics, a clock and its own namespace of the secrets vault (``secrets``).
///
/// Storage: a plugin creates only tables whose names start with ``tablePrefix``, through its own
/// ``RailPlugin/migrations`` (group ``migrationGroup``). It changes state only through
/// ``write(_:)`` (or ``respond(_:)``): one unit of work holding its own rows (held to its prefix
/// by the kernel), its ledger transfers and its events, group-committed with every other writer;
/// streams and webhooks are told after the commit. ``database`` reads and cannot write.
public struct PluginContext: Sendable {
    public let pluginID: String
    /// The ledger's reads and the rail's set-up calls; no write path (``RailLedger``).
    public let ledger: RailLedger
    /// The kernel's ledger, for the units of work this context runs.
    let kernelLedger: Ledger
    /// The rail's reads: `database.read { connection in … }`. There is no `write`: changes go
    /// through ``write(_:)``.
    public let database: DatabaseReader
    public let events: EventBus
    /// Users, tokens and wallet sign-in: a rail registers its signature schemes with
    /// `identity.wallets.schemes.register(_:)`.
    public let identity: Identity
    public let logger: Logger
    public let metrics: any MetricsFactory
    public let clock: LedgerClock
    /// The rail's secrets, sealed at rest under the hub's key-encryption key; held to the rail's
    /// own namespace (``RailSecrets``).
    public let secrets: RailSecrets
    /// The EVM chains this hub runs, for rails that use them in process (``HostedChainRegistry``):
    /// the local chain registers itself, the EVM rail runs on it by default.
    public let hostedChains: HostedChainRegistry
    /// Whether the kernel's password-less development login (`HUB_DEV_LOGIN=1`) is on: a rail may
    /// offer its own development sign-in only then.
    public let developmentLogin: Bool
    /// The event types the plugin declared (``RailPlugin/eventTypes``), the only ones its units of
    /// work may append; set by the ``PluginHost``.
    public internal(set) var eventTypes: Set<String> = [] {
        didSet { unitOwner = .rail(pluginID, eventTypes: eventTypes) }
    }

    public init(
        pluginID: String,
        ledger: Ledger,
        events: EventBus,
        identity: Identity,
        logger: Logger,
        metrics: any MetricsFactory,
        secrets: SecretsVault,
        hostedChains: HostedChainRegistry = HostedChainRegistry(),
        clock: LedgerClock = .system,
        developmentLogin: Bool = false
    ) {
        self.pluginID = pluginID
        self.unitOwner = .rail(pluginID, eventTypes: [])
        self.ledger = RailLedger(ledger, railID: pluginID)
        self.kernelLedger = ledger
        self.database = DatabaseReader(ledger.database)
        self.events = events
        self.identity = identity
        var logger = logger
        logger[metadataKey: "hub.plugin.id"] = .string(pluginID)
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.secrets = RailSecrets(vault: secrets, pluginID: pluginID)
        self.hostedChains = hostedChains
        self.developmentLogin = developmentLogin
    }

    /// `ble-sessions` → `ble_sessions_`: every table of the plugin starts with this.
    public var tablePrefix: String { PluginID.tablePrefix(pluginID) }

    /// The migration group of the plugin's migrations (its id).
    public var migrationGroup: MigrationGroup { MigrationGroup.rail(pluginID) }

    /// The `source` of the plugin's events, per CloudEvents: `/rails/<id>`.
    public var eventSource: String { unitOwner.eventSource }

    /// The plugin as the owner of its units of work. Kept rather than built per request: every
    /// write of the rail names it, and building one derives the table prefix and a set of types.
    public private(set) var unitOwner: UnitOwner

    /// A lease that elects one instance, among several on one database, for work of this rail
    /// that must run once (a chain's sealer): run the work in a ``LeaderService`` and fence its
    /// units with ``UnitOfWork/fence(_:)``. Named `rail:<id>:<name>`.
    public func lease(_ name: String, ttl: Duration = .seconds(5)) -> Lease {
        Lease(name: "rail:\(pluginID):\(name)", database: kernelLedger.database, clock: clock, ttl: ttl)
    }

    /// Runs `body` as one unit of work of this plugin (see ``Ledger/write(as:_:)``): its rows, ledger
    /// transfers and events commit together or not at all.
    public func write<Result: Sendable>(_ body: @escaping @Sendable (UnitOfWork) throws -> Result) async throws -> Result {
        try await kernelLedger.write(as: unitOwner, body)
    }

    /// Runs `request` through `step` as a unit of work of this plugin, batched with the other
    /// requests of the step waiting for the same group commit (see ``BatchedStep``).
    public func write<Request: Sendable, Result: Sendable>(_ request: Request, batchedIn step: BatchedStep<Request, Result>) async throws
        -> Result
    {
        try await kernelLedger.write(as: unitOwner, request, batchedIn: step)
    }
}

/// Rules for plugin ids.
public enum PluginID {
    /// Lower-case ASCII words of letters and digits joined by single `-`, 2 to 32 characters.
    public static func isValid(_ id: String) -> Bool {
        let words = id.split(separator: "-", omittingEmptySubsequences: false)
        return (2...32).contains(id.utf8.count)
            && words.allSatisfy { word in
                !word.isEmpty && word.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
            } && id.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } == true
    }

    public static func tablePrefix(_ id: String) -> String {
        id.replacingOccurrences(of: "-", with: "_") + "_"
    }
}
