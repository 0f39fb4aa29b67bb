import Foundation
import HubKernel

/// The rail's `config` in `plugins.json`; every member has a default.
struct LocalChainConfiguration: Sendable {
    /// Where the key-encryption key of the validator keys lives (see ``ValidatorKeyVault``).
    /// `HUB_LOCALCHAIN_KEY_FILE` overrides it.
    var keyFile = "var/localchain.key"
    /// How often the sealer looks for chains whose interval has passed with transactions pending.
    var sealTick: Duration = .milliseconds(100)
    /// Transactions per block at most (the rest wait for the next block).
    var maxBlockTransactions = 2_000
    /// How far ahead of an account's nonce a transaction may wait in the pool.
    var maxNonceGap: UInt64 = 64
    /// Pending transactions per chain at most; beyond it intake answers "pool full".
    var maxPoolPerChain = 20_000
    /// Where this hub serves its chains' blocks to relays over WebSocket (`HOST:PORT`); none by default.
    var syncListen: (host: String, port: Int)?
    /// Set when this hub relays chains of another hub.
    var relay: RelayConfiguration?
    /// Ids of public networks (``PublicChainIDs``) that event chains may use all the same: only for
    /// an operator who runs a private network on such an id on purpose. Empty by default.
    var allowedPublicChainIDs: Set<UInt64> = []
    /// The block gas limit new chains get unless their creation names one (Ethereum's of 2024).
    var blockGasLimit = Self.defaultBlockGasLimit
    /// Browser origins allowed to call the chains' JSON-RPC endpoints (``RPCCORS``).
    var rpcCORS = RPCCORS()
    /// The limits of the JSON-RPC WebSocket (``JSONRPCWebSocket``): connections per instance,
    /// subscriptions per connection, messages waiting for a slow reader.
    var webSocket = JSONRPCWebSocket.Limits()

    static let defaultBlockGasLimit: UInt64 = 30_000_000
    /// The range a chain's block gas limit may take: at least one plain transfer, at most what
    /// keeps a block's execution to seconds.
    static let blockGasLimits: ClosedRange<UInt64> = 21_000...1_000_000_000

    struct RelayConfiguration: Sendable {
        /// The upstream hub's HTTP base URL (`http://host:port`): transactions are forwarded there.
        var upstream: String
        /// The upstream's sync endpoint (`ws://host:port`, its `sync_listen`).
        var upstreamSync: String
        var chains: [UInt64]
        /// Expected genesis hashes by chain id. Without one, the relay trusts the upstream for the
        /// genesis (which names the validator); with one, a different genesis is refused.
        var genesis: [UInt64: String] = [:]
        /// How long to wait before reconnecting after the connection drops.
        var reconnectDelay: Duration = .milliseconds(500)
    }

    static let knownKeys: Set<String> = [
        "key_file", "seal_tick_ms", "max_block_transactions", "max_nonce_gap", "max_pool_per_chain", "sync_listen", "relay",
        "allowed_public_chain_ids", "block_gas_limit", "rpc_allowed_origins", "rpc_ws_max_connections", "rpc_ws_max_subscriptions",
        "rpc_ws_max_pending",
    ]

    private struct Raw: Decodable {
        var keyFile: String?
        var sealTickMs: Int?
        var maxBlockTransactions: Int?
        var maxNonceGap: Int?
        var maxPoolPerChain: Int?
        var syncListen: String?
        var relay: RawRelay?
        var allowedPublicChainIds: [UInt64]?
        var blockGasLimit: UInt64?
        var rpcAllowedOrigins: [String: [String]]?
        var rpcWsMaxConnections: Int?
        var rpcWsMaxSubscriptions: Int?
        var rpcWsMaxPending: Int?
    }

    private struct RawRelay: Decodable {
        var upstream: String
        var upstreamSync: String
        var chains: [UInt64]
        var genesis: [String: String]?
        var reconnectDelayMs: Int?
    }

    init() {}

    init(_ config: PluginConfig, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let raw = try config.decode(Raw.self, knownKeys: Self.knownKeys)
        if let file = environment["HUB_LOCALCHAIN_KEY_FILE"], !file.isEmpty {
            keyFile = file
        } else if let file = raw.keyFile {
            guard !file.isEmpty else { throw PluginConfigError(field: "key_file", message: "must not be empty") }
            keyFile = file
        }
        if let ms = raw.sealTickMs {
            guard (5...10_000).contains(ms) else { throw PluginConfigError(field: "seal_tick_ms", message: "must be 5 to 10000") }
            sealTick = .milliseconds(ms)
        }
        if let count = raw.maxBlockTransactions {
            guard (1...10_000).contains(count) else {
                throw PluginConfigError(field: "max_block_transactions", message: "must be 1 to 10000 (the ledger's batch limit)")
            }
            maxBlockTransactions = count
        }
        if let gap = raw.maxNonceGap {
            guard (0...10_000).contains(gap) else { throw PluginConfigError(field: "max_nonce_gap", message: "must be 0 to 10000") }
            maxNonceGap = UInt64(gap)
        }
        if let count = raw.maxPoolPerChain {
            guard (1...1_000_000).contains(count) else {
                throw PluginConfigError(field: "max_pool_per_chain", message: "must be 1 to 1000000")
            }
            maxPoolPerChain = count
        }
        rpcCORS = try RPCCORS(config: raw.rpcAllowedOrigins)
        if let count = raw.rpcWsMaxConnections {
            guard (1...100_000).contains(count) else { throw PluginConfigError(field: "rpc_ws_max_connections", message: "must be 1 to 100000") }
            webSocket.connections = count
        }
        if let count = raw.rpcWsMaxSubscriptions {
            guard (1...10_000).contains(count) else { throw PluginConfigError(field: "rpc_ws_max_subscriptions", message: "must be 1 to 10000") }
            webSocket.socket.subscriptions = count
        }
        if let count = raw.rpcWsMaxPending {
            guard (1...1_000_000).contains(count) else { throw PluginConfigError(field: "rpc_ws_max_pending", message: "must be 1 to 1000000") }
            webSocket.socket.pending = count
        }
        if let limit = raw.blockGasLimit {
            guard Self.blockGasLimits.contains(limit) else {
                throw PluginConfigError(field: "block_gas_limit", message: "must be 21000 to 1000000000")
            }
            blockGasLimit = limit
        }
        if let allowed = raw.allowedPublicChainIds {
            for id in allowed where PublicChainIDs.all[id] == nil {
                throw PluginConfigError(field: "allowed_public_chain_ids", message: "\(id) is not a public network's id; no override is needed")
            }
            allowedPublicChainIDs = Set(allowed)
        }
        if let listen = raw.syncListen {
            let parts = listen.split(separator: ":")
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (0...65_535).contains(port) else {
                throw PluginConfigError(field: "sync_listen", message: "must be HOST:PORT")
            }
            syncListen = (String(parts[0]), port)
        }
        if let relay = raw.relay {
            guard relay.upstream.hasPrefix("http://") || relay.upstream.hasPrefix("https://") else {
                throw PluginConfigError(field: "relay.upstream", message: "must be an http:// or https:// base URL")
            }
            guard relay.upstreamSync.hasPrefix("ws://") || relay.upstreamSync.hasPrefix("wss://") else {
                throw PluginConfigError(field: "relay.upstream_sync", message: "must be a ws:// or wss:// URL")
            }
            guard !relay.chains.isEmpty, relay.chains.allSatisfy({ (1...9_007_199_254_740_991).contains($0) }) else {
                throw PluginConfigError(field: "relay.chains", message: "must list chain ids (1 to 2^53-1)")
            }
            var parsed = RelayConfiguration(
                upstream: String(relay.upstream.trimmingSuffix("/")),
                upstreamSync: String(relay.upstreamSync.trimmingSuffix("/")),
                chains: relay.chains
            )
            for (key, hash) in relay.genesis ?? [:] {
                guard let chainID = UInt64(key), relay.chains.contains(chainID) else {
                    throw PluginConfigError(field: "relay.genesis.\(key)", message: "names no chain of relay.chains")
                }
                guard hash.hasPrefix("0x"), hash.count == 66, hash.dropFirst(2).allSatisfy(\.isHexDigit) else {
                    throw PluginConfigError(field: "relay.genesis.\(key)", message: "must be a 0x-prefixed 32-byte hash")
                }
                parsed.genesis[chainID] = hash.lowercased()
            }
            if let ms = relay.reconnectDelayMs {
                guard (10...60_000).contains(ms) else {
                    throw PluginConfigError(field: "relay.reconnect_delay_ms", message: "must be 10 to 60000")
                }
                parsed.reconnectDelay = .milliseconds(ms)
            }
            self.relay = parsed
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
