import ServiceLifecycle
import Synchronization

/// The hub's one writer: every write that must be durable before it is acknowledged (ledger
/// transfers, hold expiry, rails' units of work) waits in one queue, and everything that waited
/// while the previous database transaction ran goes into the next one (group commit). One fsync
/// then acknowledges many callers, so throughput grows with concurrency instead of weakening
/// durability.
///
/// Inside a group, plain transfer requests are applied as one ledger batch (one read of the
/// accounts involved, one write of the balances): a refused transfer is a result, not an error, so
/// they need no isolation. Each unit of work runs under its own savepoint: one that throws is
/// rolled back alone and gets its own error while the rest of the group commits; the units of one
/// ``BatchedStep`` run together under one (``GroupUnits``).
final class KernelWriter: Service {
    enum Work: Sendable {
        case transfers([TransferRequest], CheckedContinuation<[TransferResult], any Error>)
        case expire(limit: Int, CheckedContinuation<Int, any Error>)
        case unit(UnitJob)

        var transferCount: Int {
            if case .transfers(let requests, _) = self { return requests.count }
            return 0
        }

        func fail(_ error: any Error) {
            switch self {
            case .transfers(_, let continuation): continuation.resume(throwing: error)
            case .expire(_, let continuation): continuation.resume(throwing: error)
            case .unit(let job): job.finish(.failure(error))
            }
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
    /// Units per database transaction at most: bounds how long one commit holds the others.
    private let maxUnits = 512
    private let observer: LedgerObserver
    private let commits = Atomic<Int>(0)
    private let committedWork = Atomic<Int>(0)

    /// Database transactions run and the requests (transfer calls, units, expiry runs) they
    /// carried, since start: their ratio is the mean group size, which benchmarks report.
    var statistics: WriterStatistics {
        WriterStatistics(transactions: commits.load(ordering: .relaxed), requests: committedWork.load(ordering: .relaxed))
    }

    init(database: Database, clock: LedgerClock, maxBatchTransfers: Int, observer: LedgerObserver) {
        self.database = database
        self.clock = clock
        self.maxBatchTransfers = maxBatchTransfers
        self.observer = observer
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Work waiting for the next group (tests line units up in one group with it).
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Queues `work`. Work that arrives before the service starts waits for it (start-up order
    /// between services is not fixed); after shutdown it is refused.
    func enqueue(_ work: Work) {
        let accepted = state.withLock { state in
            guard state.phase != .stopped else { return false }
            state.queue.append(work)
            return true
        }
        if accepted {
            wake.yield()
        } else {
            work.fail(LedgerError.writerNotRunning)
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

    /// Groups run on the database's writer thread one after another, without going back to
    /// Swift's cooperative pool between them: under load the pool is busy with requests, and a
    /// writer that waited there for its turn left the database idle between commits. A visit runs
    /// at most ``maxGroupsPerVisit`` groups, so that other work queued on that thread (sign-ins,
    /// webhook bookkeeping) keeps its turn.
    private func drain() async {
        while true {
            let queueEmptied: Bool
            do {
                queueEmptied = try await database.withWriterConnection { connection in
                    for _ in 0..<Self.maxGroupsPerVisit {
                        guard let batch = self.takeBatch() else { return true }
                        self.process(batch, on: connection)
                    }
                    return false
                }
            } catch {
                // The writer's thread is gone (the database was closed): nobody may wait forever.
                let stranded = state.withLock { state in
                    defer { state.queue.removeAll() }
                    return state.queue
                }
                for work in stranded { work.fail(error) }
                return
            }
            if queueEmptied { return }
        }
    }

    private static let maxGroupsPerVisit = 16

    /// The next group: everything queued, up to the transfer and unit limits.
    private func takeBatch() -> [Work]? {
        state.withLock { state in
            guard !state.queue.isEmpty else { return nil }
            var taken = 0
            var transfers = 0
            for work in state.queue {
                if taken > 0 && (transfers + work.transferCount > maxBatchTransfers || taken == maxUnits) { break }
                transfers += work.transferCount
                taken += 1
            }
            defer { state.queue.removeFirst(taken) }
            return Array(state.queue.prefix(taken))
        }
    }

    /// Runs one group as one write transaction on `connection` (the writer's, on its thread) and
    /// answers every caller in it.
    private func process(_ batch: [Work], on connection: any SQLConnection) {
        var groups: [[TransferRequest]] = []
        var expireLimit = 0
        var units: [UnitJob] = []
        for work in batch {
            switch work {
            case .transfers(let requests, _): groups.append(requests)
            case .expire(let limit, _): expireLimit = max(expireLimit, limit)
            case .unit(let job): units.append(job)
            }
        }
        let (clock, limit, maxTransfers) = (self.clock, expireLimit, maxBatchTransfers)
        let transferGroups = groups
        let jobs = units
        let started = ContinuousClock.now
        do {
            let outcome = try Database.writeTransaction(on: connection) { connection in
                // Counters before ledger accounts, always: several instances on one PostgreSQL
                // database then take their locks in one order and cannot deadlock.
                if connection.dialect == .postgres { try Counters.lockAll(on: connection) }
                let now = clock.now()
                var expired = 0
                var results: [[TransferResult]] = []
                if !transferGroups.isEmpty || limit > 0 {
                    (results, expired) = try Self.applyTransfers(transferGroups, expireLimit: limit, on: connection, now: now)
                }
                var units = GroupUnits(
                    connection: connection,
                    clock: clock,
                    now: now,
                    maxBatchTransfers: maxTransfers,
                    isolate: jobs.count > 1 || !transferGroups.isEmpty || limit > 0 || jobs.contains { $0.recordsFailure }
                )
                let unitResults = try units.run(jobs)
                // The newest event this group wrote, when it read the counter: the bus announces
                // it without reading it back.
                let lastEvent = connection.activeTransaction?.cached(Counters.Name.eventSequence.rawValue)
                return (results, expired, unitResults, lastEvent)
            }
            let (results, expired, unitResults, lastEvent) = outcome
            commits.add(1, ordering: .relaxed)
            committedWork.add(batch.count, ordering: .relaxed)
            observer.committed(requests: batch.count, after: ContinuousClock.now - started)
            // Count first and nudge the bus, then answer: a caller that returns sees its events
            // already announced to streams and webhooks.
            var committedSomething = expired > 0
            var nextGroup = 0
            for work in batch {
                if case .transfers = work {
                    if observer.recorded(results[nextGroup]) { committedSomething = true }
                    nextGroup += 1
                }
            }
            for result in unitResults {
                if case .success(let transfers) = result {
                    observer.recorded(transfers)
                    // A unit may have written only its own rows and events: nudge regardless.
                    committedSomething = true
                }
            }
            if committedSomething { observer.onCommit(lastEvent) }
            nextGroup = 0
            for work in batch {
                switch work {
                case .transfers(_, let continuation):
                    continuation.resume(returning: results[nextGroup])
                    nextGroup += 1
                case .expire(_, let continuation):
                    continuation.resume(returning: expired)
                case .unit:
                    break
                }
            }
            for (job, result) in zip(jobs, unitResults) { job.finish(result) }
        } catch {
            for work in batch { work.fail(error) }
        }
    }

    /// The ledger's own part of a group: overdue holds voided, then every transfer group applied
    /// to one batch loaded and saved once.
    private static func applyTransfers(
        _ groups: [[TransferRequest]],
        expireLimit: Int,
        on connection: any SQLConnection,
        now: LedgerTimestamp
    ) throws -> ([[TransferResult]], Int) {
        var expiring: [TransferID] = []
        if expireLimit > 0 {
            expiring = try LedgerStore.duePending(at: now, limit: expireLimit, on: connection)
        }
        var ledgerBatch = try LedgerStore.loadBatch(
            requests: groups.flatMap { $0 },
            expiring: expiring,
            on: connection,
            now: now.nanoseconds
        )
        var expired = 0
        for id in expiring where ledgerBatch.expire(id) { expired += 1 }
        let results = groups.map { ledgerBatch.apply($0) }
        try LedgerStore.save(ledgerBatch, on: connection)
        return (results, expired)
    }
}

/// How much the writer grouped: see ``Ledger/writerStatistics``.
public struct WriterStatistics: Sendable, Equatable {
    public var transactions: Int
    public var requests: Int

    /// Requests per database transaction.
    public var meanGroupSize: Double { transactions == 0 ? 0 : Double(requests) / Double(transactions) }
}

/// One unit of work waiting for the writer: its body, and how to answer its caller once the
/// group it ran in has committed (or failed).
struct UnitJob: Sendable {
    typealias Outcome = Result<[TransferResult], any Error>

    let owner: UnitOwner
    /// Runs the caller's body on the writer's thread; keeps its result for `finish`.
    let execute: @Sendable (UnitOfWork) throws -> Void
    /// The `Idempotency-Key` of the HTTP request the unit serves: the body may answer with it
    /// (``UnitOfWork/answer(_:)``).
    let claim: IdempotencyClaim?
    /// Whether a failed body's problem is recorded with the claim after the rollback: only for a
    /// unit whose error is the request's answer as it stands (``Ledger/respond(as:_:)``).
    var recordsFailure = false
    /// The ``BatchedStep`` the unit belongs to, if any: the writer runs the step's queued units
    /// of one group together.
    var batch: (any BatchMembership)? = nil
    /// Answers the caller: with the body's result when the group committed, else with the error.
    let finish: @Sendable (Outcome) -> Void
}

/// Errors of the ledger as a component (not of a single transfer).
public struct LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: String
    public let message: String

    public static let writerNotRunning = LedgerError(
        code: "ledger_writer_not_running",
        message: "the hub's writer has stopped: the server is shutting down"
    )
    public static let writerAlreadyStarted = LedgerError(code: "ledger_writer_already_started", message: "the hub's writer service runs once")

    public var description: String { "\(code): \(message)" }
}

extension SQL {
    /// Savepoint names are the unit's position in its group: digits the kernel chose, not values.
    static func savepoint(_ index: Int) -> SQL { SQL(parts: [.text("SAVEPOINT unit_\(index)")]) }
    static func releaseSavepoint(_ index: Int) -> SQL { SQL(parts: [.text("RELEASE SAVEPOINT unit_\(index)")]) }
    static func rollbackToSavepoint(_ index: Int) -> SQL { SQL(parts: [.text("ROLLBACK TO SAVEPOINT unit_\(index)")]) }
}
