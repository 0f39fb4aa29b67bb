import HubKernel
import Logging

/// The local chain as the hub's ``HostedChainProvider``: other rails (the EVM marketplace on its
/// default chain) create a chain here and speak its JSON-RPC in process, exactly as a wallet does
/// over HTTP, without importing this rail.
struct LocalChainHosting: HostedChainProvider {
    let service: ChainService
    let endpoint: JSONRPCEndpoint
    let context: PluginContext

    func ensureChain(_ spec: HostedChainSpec) async throws -> Bool {
        if try await existingChainIsTheRequesters(spec) { return false }
        do {
            _ = try await service.create(
                ChainService.NewChain(
                    chainID: spec.chainID,
                    name: spec.name,
                    currencyName: spec.currencyName,
                    symbol: spec.symbol,
                    decimals: spec.decimals,
                    blockIntervalMs: Self.blockIntervalMs,
                    host: nil,
                    // No person organises a rail's chain: only admins manage it.
                    organiserID: spec.requestedBy,
                    blockGasLimit: service.configuration.blockGasLimit
                )
            )
        } catch let error as ChainServiceError where error.errorCode == "chain_id_taken" {
            // Another instance created it meanwhile (or an organiser did).
            guard try await existingChainIsTheRequesters(spec) else { throw error }
            return false
        }
        context.logger.info("created chain \(spec.chainID) for \(spec.requestedBy)")
        return true
    }

    /// Whether the chain exists and was made for `spec`'s requester; a chain an organiser made on
    /// that id is theirs, not the rail's, and refused.
    private func existingChainIsTheRequesters(_ spec: HostedChainSpec) async throws -> Bool {
        guard let existing = try await context.database.read({ try LocalChainStore.chain(spec.chainID, on: $0) }) else { return false }
        guard existing.organiserID == spec.requestedBy else { throw ChainServiceError.chainIDTaken(spec.chainID) }
        return true
    }

    func rpc(chainID: UInt64, request: [UInt8]) async throws -> [UInt8]? {
        guard try await endpoint.methods.chainExists(chainID) else { throw ChainServiceError.chainNotFound(chainID) }
        return await endpoint.respond(to: request, chainID: chainID)
    }

    /// A rail's chain seals as soon as transactions wait: its users wait on each operation.
    static let blockIntervalMs: Int64 = 250
}
