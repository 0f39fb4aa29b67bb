import ChainKit
import HubKernel
import HummingbirdWSClient
import Logging
import NIOCore
import ServiceLifecycle

/// On a relay, follows each configured chain from the upstream's sync endpoint: connects with
/// `from` = the stored head + 1 (so a relay that was stopped catches up from where it was),
/// verifies and stores each block (``BlockImporter``), and reconnects after a drop. A block that
/// fails verification is not stored; the connection is dropped and retried, so a forged block
/// never enters the relay however often it is offered.
struct RelayFollower: Service {
    let context: PluginContext
    let relay: LocalChainConfiguration.RelayConfiguration
    /// Each followed chain's state trie at its head, so a block re-hashes only what it changed.
    let stateTries = StateTrieCache()

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for chainID in relay.chains { group.addTask { await follow(chainID) } }
            }
        }
    }

    func follow(_ chainID: UInt64) async {
        let logger = context.logger
        while !Task.isCancelled {
            do {
                let head = try await context.database.read { try LocalChainStore.chain(chainID, on: $0) }
                if let head, head.upstream == nil {
                    logger.info("not relaying chain \(chainID): this hub validates it", metadata: ["localchain.chain": "\(chainID)"])
                    return
                }
                let from = head.map { $0.headNumber + 1 } ?? 0
                try await WebSocketClient.connect(
                    url: "\(relay.upstreamSync)/chains/\(chainID)/sync?from=\(from)",
                    configuration: .init(maxFrameSize: SyncServer.maxFrame),
                    logger: logger
                ) { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: SyncServer.maxFrame) {
                        guard case .binary(let buffer) = message else { continue }
                        try await receive(Array(buffer.readableBytesView), chainID: chainID)
                    }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.info("relay sync of chain \(chainID) stopped; reconnecting", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: relay.reconnectDelay)
        }
    }

    func receive(_ bytes: [UInt8], chainID: UInt64) async throws {
        let block: LocalChainBlock
        do {
            block = try LocalChainBlock.decode(bytes)
        } catch {
            throw BlockImporter.Rejection("undecodable block: \(error)")
        }
        let (upstream, source, now, genesis, stateTries) = (
            relay.upstream, context.eventSource, context.clock.now(), relay.genesis[chainID], stateTries
        )
        _ = try await context.write { unit in
            try BlockImporter.importBlock(
                block,
                chainID: chainID,
                upstream: upstream,
                expectedGenesis: genesis,
                source: source,
                now: now,
                stateTries: stateTries,
                in: unit
            )
        }
    }
}
