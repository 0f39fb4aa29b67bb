public import HubKernel
public import Hummingbird
import Logging
public import ServiceLifecycle

/// The local chain rail (`localchain`, DESIGN §4.2): event chains validated by this hub, paid with
/// standard signed Ethereum transactions, every balance mirrored in the ledger.
public struct LocalChainPlugin: RailPlugin {
    public static let id = "localchain"
    public static let eventTypes = LocalChainEvents.all

    let context: PluginContext
    let configuration: LocalChainConfiguration
    let vault: ValidatorKeyVault
    /// Chains whose blocks keep failing to seal (reported by ``health()``).
    let sealerHealth = SealerHealth()
    /// New blocks for the JSON-RPC WebSocket's subscribers (one per instance: a service and the route share it).
    let blockFeed: NewBlockFeed
    let openSockets = OpenSockets()

    public init(context: PluginContext, config: PluginConfig) throws {
        self.context = context
        context.ledger.reserveAssetCodes(prefix: LocalChainIDs.assetCodePrefix, rail: Self.id)
        self.configuration = try LocalChainConfiguration(config)
        self.blockFeed = NewBlockFeed(context: context)
        // The key file of before the secrets vault is adopted once (ValidatorKeyVault); one that
        // exists must be sound now, or the hub does not start.
        if let problem = ValidatorKeyVault.problem(at: configuration.keyFile) {
            throw PluginConfigError(field: "key_file", message: problem)
        }
        self.vault = try ValidatorKeyVault(secrets: context.secrets, legacyKeyFile: configuration.keyFile)
        context.hostedChains.register(LocalChainHosting(service: service, endpoint: rpcEndpoint, context: context))
    }

    public static var schema: [Migration] { LocalChainMigrations.all }

    var intake: TransactionIntake { TransactionIntake(context: context, configuration: configuration) }
    var service: ChainService { ChainService(context: context, configuration: configuration, vault: vault) }
    var rpcEndpoint: JSONRPCEndpoint {
        JSONRPCEndpoint(methods: EthereumRPC(context: context, intake: intake, clientVersion: "hubd-localchain/1"), cors: configuration.rpcCORS)
    }
    var sealer: BlockSealer { BlockSealer(context: context, configuration: configuration, vault: vault, health: sealerHealth) }

    public func addRoutes(to group: RouterGroup<HubRequestContext>) {
        let chains = ChainController(context: context, service: service, intake: intake)
        chains.addRoutes(to: group)
        TopUpController(context: context, service: service, chains: chains).addRoutes(to: group)
        ExplorerController(context: context).addRoutes(to: group)
        // One endpoint for POST and the WebSocket: a filter made on one is polled on the other.
        let rpc = rpcEndpoint
        rpc.addRoutes(to: group)
        JSONRPCWebSocket(endpoint: rpc, feed: blockFeed, limits: configuration.webSocket, open: openSockets).addRoutes(to: group)
    }

    public var services: [any Service] {
        // One sealer among the instances on one database: the holder of the rail's sealer lease,
        // its blocks fenced by it (a paused former holder cannot commit one after a takeover).
        let sealer = self.sealer
        var services: [any Service] = [
            LeaderService(lease: context.lease("sealer"), logger: context.logger) { lease in
                var fenced = sealer
                fenced.lease = lease
                try await fenced.run()
            },
            blockFeed,
        ]
        if let listen = configuration.syncListen { services.append(SyncServer(context: context, host: listen.host, port: listen.port)) }
        if let relay = configuration.relay { services.append(RelayFollower(context: context, relay: relay)) }
        return services
    }

    public var adminPanel: AdminPanel? {
        AdminPanel(
            title: "Local chains",
            summary: "Event chains validated by this hub: Ethereum wallets pay with signed transactions; every balance is mirrored in the ledger.",
            links: [AdminPanel.Link(title: "Chains (JSON)", path: "/chains")],
            lists: [
                AdminPanel.List(
                    id: "chains",
                    title: "Chains",
                    path: "/chains",
                    columns: [
                        .init("chain_id", title: "Chain id", kind: .link),
                        .init("name", title: "Event"),
                        .init("symbol", title: "Symbol"),
                        .init("status", title: "Status", kind: .status),
                        .init("head.number", title: "Height"),
                        .init("validator", title: "Validator"),
                        .init("rpc_path", title: "JSON-RPC"),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/chains/{chain_id}",
                        fields: [
                            .init("name", title: "Event"),
                            .init("currency_name", title: "Currency"),
                            .init("asset", title: "Ledger asset"),
                            .init("decimals", title: "Decimals"),
                            .init("block_interval_ms", title: "Block interval (ms)"),
                            .init("head.number", title: "Head"),
                            .init("head.hash", title: "Head hash"),
                            .init("genesis_hash", title: "Genesis hash"),
                            .init("rpc_path", title: "JSON-RPC endpoint"),
                        ]
                    )
                )
            ]
        )
    }

    public func health() async -> PluginHealth {
        if let problem = ValidatorKeyVault.problem(at: configuration.keyFile) {
            return PluginHealth(.down, detail: problem)
        }
        do {
            let (chains, pending) = try await context.database.read { connection in
                (
                    try connection.queryFirst("SELECT count(*) AS chains FROM localchain_chains")?.int("chains") ?? 0,
                    try connection.queryFirst("SELECT count(*) AS entries FROM localchain_pool")?.int("entries") ?? 0
                )
            }
            let failing = sealerHealth.degraded
            guard failing.isEmpty else {
                let names = failing.map { "chain \($0.chainID): \($0.error)" }.joined(separator: "; ")
                return PluginHealth(.degraded, detail: "blocks keep failing to seal (\(names)); \(chains) chains, \(pending) transactions pending")
            }
            return PluginHealth(.ok, detail: "\(chains) chains, \(pending) transactions pending")
        } catch {
            context.logger.info("local chain health check failed", metadata: ["error": "\(error)"])
            return PluginHealth(.down, detail: "cannot read localchain_chains")
        }
    }
}
