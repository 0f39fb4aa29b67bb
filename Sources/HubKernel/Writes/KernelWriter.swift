import ServiceLifecycle
import Synchronization

/// The ledger's single writer: gathers every request waiting while the previous transaction ran
/// into the next one (group commit). One fsync then acknowledges many callers, so throughput grows
/// with concurrency instead of weakening durability.
final class LedgerWriter: Service {
    enum Work: Sendable {
        case transfers([TransferRequest], CheckedContinuation<[TransferResult], any Error>)
        case expire(limit: Int, CheckedContinuation<Int, any Error>)

        var transferCount: Int {
            if case .transfers(let requests, _) = self { return requests.count }
            return 0
        }
    }

    private enum Phase { case notStarted, running, stopped }
    private struct State {
        var phase = Phase.notStarted
        var queue: [Work] = []
    }

    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let database: Database
    private let clock: LedgerClock
    private let maxBatchTransfers: Int

    init(database: Database, clock: LedgerClock, maxBatchTransfers: Int) {
        self.database = database
        self.clock = clock
        self.maxBatchTransfers = maxBatchTransfers
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func enqueue(_ work: Work) {
        let accepted = state.withLock { state in
            guard state.phase == .running else { return false }
            state.queue.append(work)
            return true
        }
        if accepted {
            wake.yield()
            return
        }
        let error = LedgerError.writerNotRunning
        switch work {
        case .transfers(_, let continuation): continuation.resume(throwing: error)
        case .expire(_, let continuation): continuation.resume(throwing: error)
        }
    }

    func run() async throws {
        try state.withLock { state in
            guard state.phase == .notStarted else { throw LedgerError.writerAlreadyStarted }
            state.phase = .running
        }
        await withGracefulShutdownHandler {
            for await _ in wakeups { await drain() }
        } onGracefulShutdown: {
            self.wake.finish()
        }
        // Refuse new work, then finish what was accepted so no caller is left waiting.
        state.withLock { $0.phase = .stopped }
        await drain()
    }

    private func drain() async {
        while true {
            let batch: [Work] = state.withLock { state in
                var taken = 0
                var count = 0
                for work in state.queue {
                    if count > 0 && count + work.transferCount > maxBatchTransfers { break }
                    count += work.transferCount
                    taken += 1
                }
                defer { state.queue.removeFirst(taken) }
                return Array(state.queue.prefix(taken))
            }
            if batch.isEmpty { return }
            await process(batch)
        }
    }

    private func process(_ batch: [Work]) async {
        var groups: [[TransferRequest]] = []
        var expireLimit = 0
        for work in batch {
            switch work {
            case .transfers(let requests, _): groups.append(requests)
            case .expire(let limit, _): expireLimit = max(expireLimit, limit)
            }
        }
        let clock = self.clock
        let groupsToApply = groups
        let limit = expireLimit
        do {
            let (results, expired) = try await database.write { connection in
                let now = clock.now().nanoseconds
                var expiring: [TransferID] = []
                if limit > 0 {
                    expiring = try connection.query(
                        "SELECT transfer_id FROM ledger_pending WHERE state = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
                        [.int(Int64(bitPattern: now)), .int(Int64(limit))]
                    ).map { try TransferID(row: $0, 0) }
                }
                var ledgerBatch = try LedgerStore.loadBatch(
                    requests: groupsToApply.flatMap { $0 },
                    expiring: expiring,
                    on: connection,
                    now: now
                )
                var expired = 0
                for id in expiring where ledgerBatch.expire(id) { expired += 1 }
                let results = groupsToApply.map { ledgerBatch.apply($0) }
                try LedgerStore.save(ledgerBatch, on: connection)
                return (results, expired)
            }
            var nextGroup = 0
            for work in batch {
                switch work {
                case .transfers(_, let continuation):
                    continuation.resume(returning: results[nextGroup])
                    nextGroup += 1
                case .expire(_, let continuation):
                    continuation.resume(returning: expired)
                }
            }
        } catch {
            for work in batch {
                switch work {
                case .transfers(_, let continuation): continuation.resume(throwing: error)
                case .expire(_, let continuation): continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// Errors of the ledger as a component (not of a single transfer).
public struct LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: String
    public let message: String

    public static let writerNotRunning = LedgerError(
        code: "ledger_writer_not_running",
        message: "the ledger's writer service is not running (it starts with the server and stops at shutdown)"
    )
    public static let writerAlreadyStarted = LedgerError(code: "ledger_writer_already_started", message: "the ledger's writer service runs once")

    public var description: String { "\(code): \(message)" }
}
