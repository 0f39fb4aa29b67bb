import ChainKit
import Foundation
public import HubKernel
public import Hummingbird
import Logging
public import ServiceLifecycle

/// The Substrate/peaq rail (`substrate`, DESIGN §4.4), first slice: sign-in with sr25519 and
/// ed25519 wallets (``SubstrateSignatureVerifier``) and users' wallets, custodial (made by the
/// hub from a BIP39 mnemonic, secret sealed by ``WalletSecrets``) or external (proven by a signed
/// challenge) (``SubstrateWallets``, ``WalletsController``); peaq DIDs with attributes in the hub's
/// own registry, every change a signed `PeaqDid` extrinsic kept as its proof (``DIDRegistry``,
/// ``DIDsController``, ``DIDChain``); sensors with their DIDs and signed uploads
/// (``SensorRegistry``, ``SensorsController``). Offline: it needs no node.
public struct SubstratePlugin: RailPlugin {
    public static let id = "substrate"
    public static let eventTypes = SubstrateEvents.all

    let context: PluginContext
    let configuration: SubstrateConfiguration
    let wallets: SubstrateWallets
    let dids: DIDRegistry
    let sensors: SensorRegistry
    let nodeReader: NodeReader?

    public init(context: PluginContext, config: PluginConfig) throws {
        self.context = context
        let configuration = try SubstrateConfiguration(config)
        self.configuration = configuration
        let secrets = try WalletSecrets(secrets: context.secrets)
        wallets = SubstrateWallets(context: context, secrets: secrets, ss58Prefix: configuration.ss58Prefix)
        // The configured runtime's metadata, or peaq mainnet's, bundled.
        guard let file = configuration.metadataFile ?? Bundle.module.url(forResource: "peaq-runtime-v14", withExtension: "scale")?.path else {
            throw PluginConfigError(field: "metadata_file", message: "none is set and the bundled peaq metadata is missing")
        }
        guard let bytes = FileManager.default.contents(atPath: file) else {
            throw PluginConfigError(field: "metadata_file", message: "cannot read \(file)")
        }
        let chain: DIDChain
        do {
            chain = try DIDChain(metadata: RuntimeMetadata(bytes: Array(bytes)))
        } catch let error as PluginConfigError {
            throw error
        } catch {
            throw PluginConfigError(field: "metadata_file", message: "not runtime metadata: \(error)")
        }
        var dids = DIDRegistry(context: context, secrets: secrets, ss58Prefix: configuration.ss58Prefix, chain: chain)
        dids.anchoring = configuration.node != nil
        self.dids = dids
        sensors = SensorRegistry(
            context: context,
            secrets: secrets,
            dids: dids,
            ss58Prefix: configuration.ss58Prefix,
            limits: configuration.sensorUploadLimits
        )
        nodeReader = configuration.node.map { NodeReader(node: $0, logger: context.logger) }
        for algorithm in SubstrateSignatureVerifier.Algorithm.allCases {
            context.identity.wallets.schemes.register(
                SubstrateSignatureVerifier(algorithm: algorithm, ss58Prefix: configuration.ss58Prefix, chain: configuration.chain)
            )
        }
    }

    public static var schema: [Migration] { SubstrateMigrations.all }

    public func addRoutes(to group: RouterGroup<HubRequestContext>) {
        WalletsController(wallets: wallets, identity: context.identity).addRoutes(to: group)
        DIDsController(registry: dids).addRoutes(to: group)
        SensorsController(sensors: sensors).addRoutes(to: group)
        let holderAnchors = HolderAnchors(context: context, reader: nodeReader, offlineChain: dids.chain, ss58Prefix: configuration.ss58Prefix)
        NodeController(context: context, reader: nodeReader, ss58Prefix: configuration.ss58Prefix, holderAnchors: holderAnchors)
            .addRoutes(to: group)
        if configuration.dataUnionCompatible {
            let limit = RateLimitMiddleware(limiter: RateLimiter(), bucket: "substrate-dataunion", rule: .authentication)
            DataUnionController(identity: context.identity, limit: limit).addRoutes(to: group)
        }
    }

    public var services: [any Service] {
        guard let node = configuration.node else { return [] }
        // One anchorer among the instances on one database: the holder of the rail's anchor
        // lease, its writes fenced by it.
        let anchorer = DIDAnchorer(
            context: context,
            node: node,
            secrets: dids.secrets,
            ss58Prefix: configuration.ss58Prefix,
            offlineChain: dids.chain
        )
        return [
            LeaderService(lease: context.lease("anchor"), logger: context.logger) { lease in
                var fenced = anchorer
                fenced.lease = lease
                try await fenced.run()
            }
        ]
    }

    public var adminPanel: AdminPanel? {
        AdminPanel(
            title: "Substrate / peaq",
            summary:
                "Your Substrate wallets: custodial ones the hub made (sr25519, secret sealed at rest) and external ones you proved you hold. Sign in with a Substrate wallet through /v1/auth/wallet (schemes sr25519 and ed25519). Your peaq DIDs (did:peaq:<address>) and their attributes, each change a signed PeaqDid extrinsic kept as its proof. Your sensors, each with its DID, and their latest uploads (signed by the sensor, kept zstd-compressed under their blake2b-256 hash).",
            links: [
                AdminPanel.Link(title: "My wallets (JSON)", path: "/wallets"), AdminPanel.Link(title: "My DIDs (JSON)", path: "/dids"),
                AdminPanel.Link(title: "My sensors (JSON)", path: "/sensors"),
            ],
            lists: [
                AdminPanel.List(
                    id: "wallets",
                    title: "My wallets",
                    path: "/wallets",
                    columns: [
                        .init("address", title: "Address", kind: .link), .init("kind", title: "Kind"), .init("scheme", title: "Scheme"),
                        .init("created_at", title: "Added", kind: .time),
                    ],
                    detail: AdminPanel.Detail(path: "/wallets/{address}", fields: [.init("public_key", title: "Public key")])
                ),
                AdminPanel.List(
                    id: "dids",
                    title: "My DIDs",
                    path: "/dids",
                    columns: [
                        .init("did", title: "DID", kind: .link), .init("wallet_kind", title: "Wallet"),
                        .init("attributes", title: "Attributes"),
                    ],
                    detail: AdminPanel.Detail(path: "/dids/{did}", fields: [.init("did", title: "DID")])
                ),
                AdminPanel.List(
                    id: "sensors",
                    title: "My sensors",
                    path: "/sensors",
                    columns: [
                        .init("address", title: "Sensor", kind: .link), .init("name", title: "Name"), .init("status", title: "Status", kind: .status),
                        .init("uploads", title: "Uploads"), .init("last_upload_at", title: "Last upload", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/sensors/{address}",
                        fields: [.init("did", title: "DID"), .init("kind", title: "Key"), .init("counter", title: "Last counter")]
                    )
                ),
                configuration.node == nil
                    ? nil
                    : AdminPanel.List(
                        id: "anchors",
                        title: "DID changes anchored on the peaq node",
                        path: "/anchors",
                        columns: [
                            .init("did", title: "DID"), .init("call", title: "Call"), .init("name", title: "Attribute"),
                            .init("status", title: "Status", kind: .status), .init("block_number", title: "Block"),
                            .init("error", title: "Why not"), .init("updated_at", title: "Updated", kind: .time),
                        ]
                    ),
                AdminPanel.List(
                    id: "sensor-uploads",
                    title: "Latest sensor uploads",
                    path: "/sensor-uploads",
                    columns: [
                        .init("sensor", title: "Sensor"), .init("hash", title: "Content hash"), .init("content_type", title: "Type"),
                        .init("size", title: "Bytes"), .init("created_at", title: "Uploaded", kind: .time),
                    ]
                ),
            ].compactMap { $0 }
        )
    }

    public func health() async -> PluginHealth {
        do {
            let anchoring = configuration.node != nil
            let (count, anchors) = try await context.database.read { connection in
                (
                    try connection.queryFirst("SELECT count(*) AS n FROM substrate_wallets")?.int("n") ?? 0,
                    anchoring ? try DIDAnchors.counts(on: connection) : [:]
                )
            }
            guard anchoring else { return PluginHealth(.ok, detail: "\(count) wallets") }
            let waiting = (anchors["pending"] ?? 0) + (anchors["submitted"] ?? 0) + (anchors["in_block"] ?? 0)
            return PluginHealth(.ok, detail: "\(count) wallets; DID anchors: \(waiting) on their way, \(anchors["failed"] ?? 0) failed")
        } catch {
            context.logger.info("substrate health check failed", metadata: ["error": "\(error)"])
            return PluginHealth(.down, detail: "cannot read substrate_wallets")
        }
    }
}
