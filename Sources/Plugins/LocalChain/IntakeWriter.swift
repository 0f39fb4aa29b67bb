import HubKernel
import ServiceLifecycle
import Synchronization

/// Group commit for transaction intake: every transaction waiting while the previous write ran
/// is stored in the next write transaction, one after another on the same connection (so each
/// sees the ones before it: nonces and pending spends stay exact), then all their callers are
/// answered. One fsync acknowledges many transactions; durability is unchanged (a hash is
/// returned only after the commit). The benchmark (`scripts/bench-localchain.sh`) measured
/// 780 accepted/s with one write transaction per transaction.
final class IntakeWriter: Service {
    struct Item: Sendable {
        var transaction: ValidatedTransaction
        var chainID: UInt64
        var continuation: CheckedContinuation<TransactionIntake.Outcome, any Error>
    }

    private enum Phase { case notStarted, running, stopped }
    private struct State {
        var phase = Phase.notStarted
        var queue: [Item] = []
    }

    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    let context: PluginContext
    let configuration: LocalChainConfiguration
    /// Transactions per write transaction at most.
    let maxBatch = 1_000

    init(context: PluginContext, configuration: LocalChainConfiguration) {
        self.context = context
        self.configuration = configuration
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Stores `transaction`, batched with others, and returns when it is committed. When the
    /// writer is not running (before start-up, after shutdown) it stores it alone.
    func store(_ transaction: ValidatedTransaction, chainID: UInt64) async throws -> TransactionIntake.Outcome {
        let outcome = try await withCheckedThrowingContinuation { continuation in
            let item = Item(transaction: transaction, chainID: chainID, continuation: continuation)
            let queued = state.withLock { state in
                guard state.phase == .running else { return false }
                state.queue.append(item)
                return true
            }
            if queued {
                wake.yield()
            } else {
                Task { await self.process([item]) }
            }
        }
        if case .accepted = outcome { context.events.nudge() }
        return outcome
    }

    func run() async throws {
        state.withLock { $0.phase = .running }
        await withGracefulShutdownHandler {
            for await _ in wakeups { await drain() }
        } onGracefulShutdown: {
            self.wake.finish()
        }
        state.withLock { $0.phase = .stopped }
        await drain()
    }

    private func drain() async {
        while true {
            let batch: [Item] = state.withLock { state in
                let taken = Array(state.queue.prefix(maxBatch))
                state.queue.removeFirst(taken.count)
                return taken
            }
            if batch.isEmpty { return }
            await process(batch)
        }
    }

    private func process(_ batch: [Item]) async {
        let (configuration, source, now) = (configuration, context.eventSource, context.clock.now())
        let work = batch.map { ($0.transaction, $0.chainID) }
        do {
            let results = try await context.database.write { connection -> [Result<TransactionIntake.Outcome, TransactionRejection>] in
                try work.map { transaction, chainID in
                    do {
                        // A rejection is thrown before this transaction writes anything, so the
                        // others in the batch are unaffected; any other error aborts the batch.
                        return .success(
                            try TransactionIntake.store(transaction, chainID: chainID, configuration: configuration, source: source, now: now, on: connection)
                        )
                    } catch let rejection as TransactionRejection {
                        return .failure(rejection)
                    }
                }
            }
            for (item, result) in zip(batch, results) { item.continuation.resume(with: result.mapError { $0 as any Error }) }
        } catch {
            for item in batch { item.continuation.resume(throwing: error) }
        }
    }
}
