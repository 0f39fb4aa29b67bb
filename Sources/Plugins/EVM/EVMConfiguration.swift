import Foundation
import HubKernel

/// The rail's `config` in `plugins.json`: the EVM chains it works on.
///
/// ```json
/// { "chains": [
///     { "id": "hub", "chain_id": 1370000, "rpc": "hub", "confirmations": 0, "native_asset": "Market Coin" },
///     { "id": "sepolia", "chain_id": 11155111, "rpc": "https://rpc.sepolia.example", "confirmations": 12, "native_asset": "ETH" }
///   ],
///   "default_chain": "hub" }
/// ```
///
/// Without `chains` the rail runs on one chain of this hub (``EVMChainSettings/hostedDefault``),
/// created at first start: offline by default. Kaia/Klaytn or an Ethereum testnet is a matter of
/// adding an entry with its chain id and endpoint.
struct EVMConfiguration: Sendable {
    var chains: [EVMChainSettings] = [.hostedDefault]
    /// The chain used when a request names none.
    var defaultChain = EVMChainSettings.hostedDefault.id

    static let knownKeys: Set<String> = ["chains", "default_chain"]
    static let knownChainKeys: Set<String> = [
        "id", "chain_id", "rpc", "confirmations", "native_asset", "symbol", "decimals", "replace_after_seconds",
    ]

    private struct Raw: Decodable {
        var chains: [RawChain]?
        var defaultChain: String?
    }

    private struct RawChain: Decodable {
        var id: String
        var chainId: UInt64
        var rpc: String
        var confirmations: Int?
        var nativeAsset: String?
        var symbol: String?
        var decimals: UInt8?
        var replaceAfterSeconds: Int?
    }

    init() {}

    init(_ config: PluginConfig) throws {
        let raw = try config.decode(Raw.self, knownKeys: Self.knownKeys)
        if let chains = raw.chains {
            guard !chains.isEmpty else { throw PluginConfigError(field: "chains", message: "name at least one chain, or leave `chains` out") }
            self.chains = try chains.enumerated().map { index, chain in try Self.settings(chain, field: "chains[\(index)]") }
            let ids = self.chains.map(\.id)
            if let duplicate = ids.first(where: { id in ids.filter { $0 == id }.count > 1 }) {
                throw PluginConfigError(field: "chains", message: "chain id '\(duplicate)' appears twice")
            }
            let numbers = self.chains.map(\.chainID)
            if let duplicate = numbers.first(where: { number in numbers.filter { $0 == number }.count > 1 }) {
                throw PluginConfigError(field: "chains", message: "chain_id \(duplicate) appears twice")
            }
            defaultChain = self.chains[0].id
        }
        if let name = raw.defaultChain {
            guard chains.contains(where: { $0.id == name }) else {
                throw PluginConfigError(field: "default_chain", message: "'\(name)' is not one of the configured chains")
            }
            defaultChain = name
        }
    }

    private static func settings(_ raw: RawChain, field: String) throws -> EVMChainSettings {
        guard EVMChainSettings.isValidID(raw.id) else {
            throw PluginConfigError(field: "\(field).id", message: "an id is 1 to 32 of a-z, 0-9 and -")
        }
        guard raw.chainId > 0 else { throw PluginConfigError(field: "\(field).chain_id", message: "a chain id is positive") }
        let endpoint: EVMChainSettings.Endpoint
        if raw.rpc == "hub" {
            endpoint = .hosted
        } else if let url = URL(string: raw.rpc), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil {
            endpoint = .http(url)
        } else {
            throw PluginConfigError(field: "\(field).rpc", message: "'\(raw.rpc)' is neither \"hub\" (a chain of this hub) nor an http(s) URL")
        }
        let confirmations = raw.confirmations ?? (endpoint == .hosted ? 0 : 12)
        guard (0...1_000).contains(confirmations) else {
            throw PluginConfigError(field: "\(field).confirmations", message: "confirmations are 0 to 1000 blocks")
        }
        let decimals = raw.decimals ?? 18
        guard decimals <= 36 else { throw PluginConfigError(field: "\(field).decimals", message: "decimals are 0 to 36") }
        let symbol = raw.symbol ?? (endpoint == .hosted ? "MKT" : "ETH")
        guard (1...11).contains(symbol.count), symbol.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw PluginConfigError(field: "\(field).symbol", message: "a symbol is 1 to 11 ASCII letters or digits")
        }
        // The hub's own chain includes every transaction it accepts, so nothing gets stuck there.
        let replaceAfter = raw.replaceAfterSeconds ?? (endpoint == .hosted ? 0 : 180)
        guard (0...86_400).contains(replaceAfter) else {
            throw PluginConfigError(field: "\(field).replace_after_seconds", message: "replace_after_seconds is 0 (never) to 86400")
        }
        return EVMChainSettings(
            id: raw.id,
            chainID: raw.chainId,
            endpoint: endpoint,
            confirmations: confirmations,
            nativeAsset: raw.nativeAsset ?? (endpoint == .hosted ? "Market Coin" : "Ether"),
            symbol: symbol,
            decimals: decimals,
            replaceAfterSeconds: replaceAfter
        )
    }
}

/// One chain the rail works on.
struct EVMChainSettings: Sendable, Hashable {
    enum Endpoint: Sendable, Hashable {
        /// A chain of this hub, reached in process (``HostedChainProvider``).
        case hosted
        /// A node's JSON-RPC over HTTP(S).
        case http(URL)
    }

    /// The rail's name for the chain (`hub`, `sepolia`), used in URLs and records.
    var id: String
    /// EIP-155 chain id.
    var chainID: UInt64
    var endpoint: Endpoint
    /// Blocks on top of a transaction's block before the rail treats it as final.
    var confirmations: Int
    /// The native currency's name.
    var nativeAsset: String
    var symbol: String
    var decimals: UInt8
    /// A transaction the node holds but has not included after this long is sent again with the
    /// same nonce and a higher gas price (0: never).
    var replaceAfterSeconds = 0

    /// The chain the rail runs on when none is configured: a chain of this hub.
    static let hostedDefault = EVMChainSettings(
        id: "hub",
        chainID: 1_370_000,
        endpoint: .hosted,
        confirmations: 0,
        nativeAsset: "Market Coin",
        symbol: "MKT",
        decimals: 18
    )

    static func isValidID(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }
}
