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
    /// One per plugin: its batched step gathers the callers of every route that takes transactions.
    let intake: TransactionIntake

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
        self.intake = TransactionIntake(context: context, configuration: configuration)
        context.hostedChains.register(LocalChainHosting(service: service, endpoint: rpcEndpoint, context: context))
    }

    public static var schema: [Migration] { LocalChainMigrations.all }

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
                            .init("status", title: "Status", kind: .status),
                            .init("currency_name", title: "Currency"),
                            .init("asset", title: "Ledger asset"),
                            .init("decimals", title: "Decimals"),
                            .init("block_interval_ms", title: "Block interval (ms)"),
                            .init("head.number", title: "Head"),
                            .init("head.hash", title: "Head hash"),
                            .init("genesis_hash", title: "Genesis hash"),
                            .init("validator", title: "Validator"),
                            .init("rpc_path", title: "JSON-RPC endpoint"),
                        ],
                        lists: Self.explorerLists,
                        actions: Self.chainActions
                    )
                )
            ]
        )
    }

    /// The chain's explorer in its detail view: the explorer routes, filled from the chain.
    static let explorerLists: [AdminPanel.List] = [
        AdminPanel.List(
            id: "blocks",
            title: "Latest blocks",
            path: "/chains/{chain_id}/blocks?limit=10",
            columns: [
                .init("number", title: "Block", kind: .link),
                .init("transaction_count", title: "Transactions"),
                .init("hash", title: "Hash"),
                .init("compressed_bytes", title: "Stored bytes"),
            ],
            detail: AdminPanel.Detail(
                path: "/chains/{chain_id}/blocks/{number}",
                fields: [.init("timestamp", title: "Timestamp (Unix s)"), .init("state_root", title: "State root")]
            )
        ),
        AdminPanel.List(
            id: "transactions",
            title: "Transactions",
            path: "/chains/{chain_id}/transactions?limit=10",
            columns: [
                .init("hash", title: "Hash", kind: .link),
                .init("block_number", title: "Block"),
                .init("status", title: "Status", kind: .status),
                .init("from", title: "From"),
                .init("to", title: "To"),
                .init("value", title: "Value", kind: .amount),
                .init("call.name", title: "Call"),
            ],
            detail: AdminPanel.Detail(
                path: "/chains/{chain_id}/transactions/{hash}",
                fields: [
                    .init("status", title: "Status", kind: .status), .init("call.signature", title: "Call"),
                    .init("call.args", title: "Arguments"), .init("logs", title: "Logs (events decoded where known)"),
                ]
            )
        ),
        AdminPanel.List(
            id: "contracts",
            title: "Contracts",
            path: "/chains/{chain_id}/accounts?kind=contract&limit=20",
            columns: [
                .init("address", title: "Contract", kind: .link),
                .init("balance", title: "Balance", kind: .amount),
                .init("code_size", title: "Code (bytes)"),
                .init("nonce", title: "Nonce"),
            ],
            detail: AdminPanel.Detail(path: "/chains/{chain_id}/accounts/{address}", fields: [.init("code_hash", title: "Code hash")])
        ),
        AdminPanel.List(
            id: "accounts",
            title: "Accounts",
            path: "/chains/{chain_id}/accounts?limit=20",
            columns: [
                .init("address", title: "Address", kind: .link),
                .init("balance", title: "Balance", kind: .amount),
                .init("nonce", title: "Nonce"),
                .init("code_size", title: "Code (bytes)"),
            ],
            detail: AdminPanel.Detail(
                path: "/chains/{chain_id}/accounts/{address}",
                fields: [.init("ledger_account_id", title: "Ledger account", kind: .link, link: "/admin/transfers?account_id={value}")]
            )
        ),
    ]

    /// Grants, pause and resume on the chain's detail, through the chain's own routes (the
    /// organiser's or an admin's, as the routes decide).
    static let chainActions: [AdminPanel.Action] = [
        AdminPanel.Action(
            id: "grant",
            title: "Grant currency",
            path: "/chains/{chain_id}/grants",
            fields: [.init("to", label: "To address", kind: .address), .init("amount", label: "Amount", kind: .amount)],
            confirmation:
                "Grant this amount? The validator signs a transfer of new currency to the address; it is mirrored in the ledger when sealed.",
            statuses: ["active"],
            idField: "id"
        ),
        AdminPanel.Action(
            id: "pause",
            title: "Pause",
            path: "/chains/{chain_id}/pause",
            confirmation: "Pause this chain? No blocks are sealed until it is resumed; transactions sent meanwhile wait in the pool.",
            statuses: ["active"]
        ),
        AdminPanel.Action(
            id: "resume",
            title: "Resume",
            path: "/chains/{chain_id}/resume",
            confirmation: "Resume this chain? Blocks are sealed again.",
            statuses: ["paused"]
        ),
    ]

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
