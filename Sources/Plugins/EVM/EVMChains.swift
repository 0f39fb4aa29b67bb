import Foundation
import HubKernel
import Logging
import ServiceLifecycle
import Synchronization

/// The rail's chains at run time: their settings, a client for each, and what the rail last
/// learned of them (``ChainStatus``), for `GET /v1/rails/evm/chains` and the rail's health.
final class EVMChains: Sendable {
    let configuration: EVMConfiguration
    private let hostedChains: HostedChainRegistry
    private let statuses = Mutex<[String: ChainStatus]>([:])

    init(configuration: EVMConfiguration, hostedChains: HostedChainRegistry) {
        self.configuration = configuration
        self.hostedChains = hostedChains
    }

    var all: [EVMChainSettings] { configuration.chains }

    /// The chain named `id`, or the default chain when `id` is `nil`.
    func settings(_ id: String?) throws -> EVMChainSettings {
        let id = id ?? configuration.defaultChain
        guard let chain = configuration.chains.first(where: { $0.id == id }) else { throw EVMError.unknownChain(id) }
        return chain
    }

    func client(_ chain: EVMChainSettings) throws -> ChainClient {
        switch chain.endpoint {
        case .hosted:
            guard let provider = hostedChains.provider else {
                throw EVMError.chainUnavailable(
                    chain.id,
                    "no rail runs chains on this hub (enable `localchain`, or give the chain an http(s) endpoint)"
                )
            }
            return ChainClient(chain: chain.id, transport: HostedChainTransport(chainID: chain.chainID, provider: provider))
        case .http(let url):
            return ChainClient(chain: chain.id, transport: HTTPChainTransport(chain: chain.id, url: url))
        }
    }

    func status(_ id: String) -> ChainStatus { statuses.withLock { $0[id] ?? .starting } }

    func record(_ status: ChainStatus, for id: String) { statuses.withLock { $0[id] = status } }

    /// Makes each chain ready: a chain of this hub is created if it does not exist; every chain's
    /// node must report the configured chain id (a misconfigured endpoint would have the hub sign
    /// for another network). A chain that cannot be reached is retried until it can.
    func prepare(_ chain: EVMChainSettings, logger: Logger) async throws {
        if chain.endpoint == .hosted, let provider = hostedChains.provider {
            let spec = HostedChainSpec(
                chainID: chain.chainID,
                name: "EVM rail: \(chain.id)",
                currencyName: chain.nativeAsset,
                symbol: chain.symbol,
                decimals: chain.decimals,
                requestedBy: "rail:\(EVMPlugin.id)"
            )
            if try await provider.ensureChain(spec) { logger.info("created chain \(chain.chainID) of this hub for the EVM rail's '\(chain.id)'") }
        }
        let reported = try await client(chain).quantity("eth_chainId")
        guard reported == chain.chainID else { throw EVMError.wrongChainID(chain.id, expected: chain.chainID, found: reported) }
    }
}

/// What the rail knows of a chain.
enum ChainStatus: Sendable, Equatable {
    case starting
    case ready
    case unavailable(String)

    var name: String {
        switch self {
        case .starting: "starting"
        case .ready: "ready"
        case .unavailable: "unavailable"
        }
    }

    var detail: String? {
        if case .unavailable(let detail) = self { return detail }
        return nil
    }
}

/// Prepares every chain at start-up and retries those that fail, so a node that is down when
/// the hub starts is picked up when it comes back.
struct ChainPreparation: Service {
    let chains: EVMChains
    /// Where an external chain's ledger asset is created (``ContractLedger``).
    let ledger: RailLedger
    let logger: Logger
    var retry: Duration = .seconds(5)

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await prepareAll() }
        // A service that returns early would stop the hub: stay until it shuts down.
        try? await gracefulShutdown()
    }

    func prepareAll() async throws {
        var pending = chains.all
        while !pending.isEmpty {
            var failed: [EVMChainSettings] = []
            for chain in pending {
                do {
                    try await chains.prepare(chain, logger: logger)
                    try await ContractLedger.ensureAsset(chain, ledger: ledger)
                    chains.record(.ready, for: chain.id)
                } catch is CancellationError {
                    return
                } catch {
                    let detail = (error as? EVMError)?.message ?? "\(error)"
                    if chains.status(chain.id) != .unavailable(detail) { logger.warning("EVM chain '\(chain.id)' is not ready: \(detail)") }
                    chains.record(.unavailable(detail), for: chain.id)
                    failed.append(chain)
                }
            }
            pending = failed
            if !pending.isEmpty { try await Task.sleep(for: retry) }
        }
    }
}
