public import HubKernel

/// The rail's `config` object in `plugins.json`, every member optional:
///
/// ```json
/// { "id": "substrate", "config": { "ss58_prefix": 42, "chain": "peaq", "metadata_file": "peaq.scale",
///   "dataunion_compatible": false,
///   "sensor_max_upload_bytes": 4194304, "sensor_upload_types": ["application/json", "image/jpeg"],
///   "node_url": "wss://peaq.api.onfinality.io/public-ws", "node_retry_ms": 5000, "node_poll_ms": 1000 } }
/// ```
public struct SubstrateConfiguration: Sendable, Equatable {
    /// The SS58 network prefix addresses are answered in (42, generic Substrate, is what every
    /// peaq runtime sets; the registry's 1221 is peaq's own). Addresses of any prefix are accepted.
    public var ss58Prefix: UInt16 = 42
    /// The chain sign-in messages name on their `Chain ID` line: a name (`peaq`, the default) or
    /// a CAIP-2 id (`polkadot:<first 32 hex digits of the genesis hash>`) for a known network.
    /// A wallet's own message must name the same.
    public var chain = "peaq"
    /// The runtime metadata DID changes are built from: a file of the raw SCALE bytes
    /// `state_getMetadata` answers (hex-decoded), with a `PeaqDid` pallet. Without it, peaq
    /// mainnet's, bundled with the rail (`Resources/peaq-runtime-v14.scale`).
    public var metadataFile: String?
    /// DataUnion's login routes for the Brainstem app under `/dataunion` (off by default): its
    /// wallets sign a bare number, which names no site (``DataUnionController``).
    public var dataUnionCompatible = false
    /// The largest file a sensor uploads (`sensor_max_upload_bytes`), 4 MiB unless set, at most
    /// 64 MiB: an upload is held in memory while it is checked.
    public var sensorMaxUploadBytes = SensorUploadLimits.defaultMaxBytes
    /// The content types sensors upload (`sensor_upload_types`), lower-case `type/subtype`.
    public var sensorUploadTypes = SensorUploadLimits.defaultTypes

    /// A peaq (or any Substrate) node's WebSocket JSON-RPC (`node_url`, `ws://` or `wss://`): when
    /// set, every DID change is also anchored there (``DIDAnchorer``) and `/node/…` reads its
    /// storage. Without it the registry is offline only.
    public var node: Node?

    /// How the rail talks to its node.
    public struct Node: Sendable, Equatable {
        public var url: String
        /// The wait before connecting again after the node went away (`node_retry_ms`, default 5 s).
        public var retryDelay: Duration = .seconds(5)
        /// How often the anchorer looks for new changes and finality when idle (`node_poll_ms`, default 1 s).
        public var pollInterval: Duration = .seconds(1)
        /// How long an extrinsic may wait in the node's pool for a block before it is looked for
        /// again (and sent again, as it was signed).
        public var inclusionTimeout: Duration = .seconds(120)

        public init(url: String) { self.url = url }
    }

    var sensorUploadLimits: SensorUploadLimits { SensorUploadLimits(maxBytes: sensorMaxUploadBytes, types: sensorUploadTypes) }

    public init() {}

    public init(_ config: PluginConfig) throws {
        let raw = try config.decode(Raw.self, knownKeys: Raw.knownKeys)
        if let prefix = raw.ss58Prefix {
            guard (0...Int(SS58Limits.maximumPrefix)).contains(prefix), !SS58Limits.reserved.contains(prefix) else {
                throw PluginConfigError(
                    field: "ss58_prefix",
                    message: "must be 0 to \(SS58Limits.maximumPrefix) and not 46 or 47 (reserved), got \(prefix)"
                )
            }
            ss58Prefix = UInt16(prefix)
        }
        if let chain = raw.chain {
            let allowed = chain.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x3A || byte == 0x2D
                    || byte == 0x5F
            }
            guard (1...64).contains(chain.utf8.count), allowed else {
                throw PluginConfigError(field: "chain", message: "1 to 64 letters, digits, ':', '-' or '_' (a name or a CAIP-2 id)")
            }
            self.chain = chain
        }
        if let file = raw.metadataFile {
            guard !file.isEmpty else { throw PluginConfigError(field: "metadata_file", message: "a path to a metadata file") }
            metadataFile = file
        }
        dataUnionCompatible = raw.dataunionCompatible ?? false
        if let bytes = raw.sensorMaxUploadBytes {
            guard (1...SensorUploadLimits.largestMaxBytes).contains(bytes) else {
                throw PluginConfigError(field: "sensor_max_upload_bytes", message: "1 to \(SensorUploadLimits.largestMaxBytes) bytes, got \(bytes)")
            }
            sensorMaxUploadBytes = bytes
        }
        if let types = raw.sensorUploadTypes {
            guard !types.isEmpty, types.allSatisfy(SensorUploadMessage.isContentType) else {
                throw PluginConfigError(field: "sensor_upload_types", message: "a list of lower-case type/subtype content types")
            }
            sensorUploadTypes = types
        }
        if let url = raw.nodeUrl {
            guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), url.count > 6, !url.contains(" ") else {
                throw PluginConfigError(field: "node_url", message: "a ws:// or wss:// URL of the node's JSON-RPC, got \(url.prefix(200))")
            }
            var node = Node(url: url)
            if let milliseconds = raw.nodeRetryMs {
                guard (10...600_000).contains(milliseconds) else {
                    throw PluginConfigError(field: "node_retry_ms", message: "10 to 600000 milliseconds, got \(milliseconds)")
                }
                node.retryDelay = .milliseconds(milliseconds)
            }
            if let milliseconds = raw.nodePollMs {
                guard (10...60_000).contains(milliseconds) else {
                    throw PluginConfigError(field: "node_poll_ms", message: "10 to 60000 milliseconds, got \(milliseconds)")
                }
                node.pollInterval = .milliseconds(milliseconds)
            }
            self.node = node
        } else if raw.nodeRetryMs != nil || raw.nodePollMs != nil {
            throw PluginConfigError(field: "node_url", message: "node_retry_ms and node_poll_ms need a node_url")
        }
    }

    private struct Raw: Decodable {
        var ss58Prefix: Int?
        var chain: String?
        var metadataFile: String?
        var dataunionCompatible: Bool?
        var sensorMaxUploadBytes: Int?
        var sensorUploadTypes: [String]?
        var nodeUrl: String?
        var nodeRetryMs: Int?
        var nodePollMs: Int?

        static let knownKeys: Set<String> = [
            "ss58_prefix", "chain", "metadata_file", "dataunion_compatible", "sensor_max_upload_bytes", "sensor_upload_types",
            "node_url", "node_retry_ms", "node_poll_ms",
        ]
    }
}

/// SS58's prefix rules as the rail checks its configuration (ChainKit's ``SS58`` applies them to
/// addresses): 14 bits, and 46 and 47 reserved by the registry.
enum SS58Limits {
    static let maximumPrefix = 16383
    static let reserved: Set<Int> = [46, 47]
}
