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

    static let knownKeys: Set<String> = ["key_file", "seal_tick_ms", "max_block_transactions", "max_nonce_gap", "max_pool_per_chain"]

    private struct Raw: Decodable {
        var keyFile: String?
        var sealTickMs: Int?
        var maxBlockTransactions: Int?
        var maxNonceGap: Int?
        var maxPoolPerChain: Int?
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
    }
}
