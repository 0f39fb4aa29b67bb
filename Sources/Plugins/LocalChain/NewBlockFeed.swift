import ChainKit
import Foundation
import HubKernel
import Logging
import ServiceLifecycle
import Synchronization

/// A sealed block as `eth_subscribe` subscribers receive it: its header as `eth_getBlockByNumber`
/// shapes it (without the transactions), and its logs as `eth_getLogs` does, each encoded once
/// for every socket that gets it.
struct SealedBlockNotice: Sendable {
    struct Log: Sendable {
        var log: ChainLog
        var json: [UInt8]
    }

    var number: UInt64
    var header: [UInt8]
    var logs: [Log]
}

/// Hands every block sealed on a chain to the WebSocket connections open on it, in order, once.
///
/// It learns of blocks from the kernel's event bus: a sealed or relayed block commits with its
/// `localchain.block.sealed` event, the bus wakes at once for this instance's writes and, through
/// PostgreSQL's `LISTEN`/`NOTIFY`, for every other instance's (and polls besides). On each signal
/// it reads the heads of the chains that have connections, and the blocks past what it handed out
/// (one read, whatever the number of connections). The database stays the only source: a missed
/// signal only delays blocks to the next one. The chain never reorganises (instant finality, see
/// ``BlockImporter``), so a block handed out is never taken back.
final class NewBlockFeed: Service, Sendable {
    typealias Deliver = @Sendable (SealedBlockNotice) -> Void

    private struct Sink {
        var chainID: UInt64
        var deliver: Deliver
    }

    private struct State {
        var sinks: [UUID: Sink] = [:]
        /// Per chain with sinks, the last block handed out.
        var published: [UInt64: UInt64] = [:]
    }

    /// Blocks read at once while catching up.
    static let pageSize = 16

    private let context: PluginContext
    private let state = Mutex(State())

    init(context: PluginContext) {
        self.context = context
    }

    /// Connections receiving blocks (for tests: none is left once its socket closes).
    var sinkCount: Int { state.withLock { $0.sinks.count } }

    /// Runs `body` while `deliver` is handed each block sealed on `chainID` from about now on
    /// (blocks sealed as the sink is added may come too: subscriptions filter by number).
    func withSink<Result: Sendable>(
        chainID: UInt64,
        deliver: @escaping Deliver,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let head = try await context.database.read { try LocalChainStore.chain(chainID, on: $0)?.headNumber } ?? 0
        let id = UUID()
        state.withLock { state in
            if state.published[chainID] == nil { state.published[chainID] = head }
            state.sinks[id] = Sink(chainID: chainID, deliver: deliver)
        }
        defer {
            state.withLock { state in
                state.sinks[id] = nil
                if !state.sinks.values.contains(where: { $0.chainID == chainID }) { state.published[chainID] = nil }
            }
        }
        return try await body()
    }

    func run() async throws {
        await context.events.withSubscription { signals in
            for await _ in signals.cancelOnGracefulShutdown() {
                await publishNewBlocks()
            }
        }
    }

    /// Hands out every block sealed since the last look, on each chain with sinks.
    func publishNewBlocks() async {
        let chains = state.withLock { $0.published }
        for (chainID, last) in chains {
            do {
                var next = last + 1
                while true {
                    let notices = try await read(chainID: chainID, from: next)
                    guard let newest = notices.last else { break }
                    publish(notices, chainID: chainID)
                    next = newest.number + 1
                }
            } catch {
                context.logger.warning(
                    "new blocks could not be read for WebSocket subscribers",
                    metadata: ["localchain.chain": "\(chainID)", "error": "\(error)"]
                )
            }
        }
    }

    /// Up to ``pageSize`` blocks from `from` on, with their logs, decoded and encoded on the
    /// reader's thread (off the cooperative pool).
    private func read(chainID: UInt64, from: UInt64) async throws -> [SealedBlockNotice] {
        try await context.database.read { connection -> [SealedBlockNotice] in
            guard let chain = try LocalChainStore.chain(chainID, on: connection), chain.headNumber >= from else { return [] }
            let blocks = try LocalChainStore.blocks(chainID: chainID, from: from, limit: Self.pageSize, on: connection)
            guard let last = blocks.last else { return [] }
            // A block's logs are bounded by its gas: every one of them is delivered.
            let logs = try LogStore.logs(chainID: chainID, filter: LogFilter(fromBlock: from, toBlock: last.number), limit: .max, on: connection)
            let logsByBlock = Dictionary(grouping: logs, by: \.blockNumber)
            return try blocks.map { stored in
                var header = try RPCFormat.block(stored, try stored.decoded(), full: false, senders: [], gasLimit: chain.blockGasLimit)
                header["transactions"] = nil
                header["uncles"] = nil
                return SealedBlockNotice(
                    number: stored.number,
                    header: try RPCJSON.data(header),
                    logs: try (logsByBlock[stored.number] ?? []).map {
                        SealedBlockNotice.Log(log: $0, json: try RPCJSON.data(RPCFormat.log($0, blockHash: stored.hash)))
                    }
                )
            }
        }
    }

    private func publish(_ notices: [SealedBlockNotice], chainID: UInt64) {
        guard let newest = notices.last?.number else { return }
        let sinks = state.withLock { state -> [Deliver] in
            // Sinks all gone meanwhile: nothing to hand out, and the chain is no longer followed.
            guard let published = state.published[chainID] else { return [] }
            state.published[chainID] = max(published, newest)
            return state.sinks.values.filter { $0.chainID == chainID }.map(\.deliver)
        }
        for notice in notices {
            for deliver in sinks { deliver(notice) }
        }
    }
}
