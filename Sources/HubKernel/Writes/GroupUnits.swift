/// The units of work of one group, run one after another inside its write transaction on the
/// writer's connection, each under its own savepoint when the group holds anything else, and
/// the queued units of one ``BatchedStep`` together under one.
struct GroupUnits {
    let connection: any SQLConnection
    let clock: LedgerClock
    let now: LedgerTimestamp
    let maxBatchTransfers: Int
    /// Whether units run under savepoints. A lone unit needs none: its failure rolls back the
    /// transaction, which holds nothing else.
    let isolate: Bool
    private var savepoints = 0

    init(connection: any SQLConnection, clock: LedgerClock, now: LedgerTimestamp, maxBatchTransfers: Int, isolate: Bool) {
        self.connection = connection
        self.clock = clock
        self.now = now
        self.maxBatchTransfers = maxBatchTransfers
        self.isolate = isolate
    }

    /// Runs `jobs` and returns each one's outcome, in their order.
    mutating func run(_ jobs: [UnitJob]) throws -> [UnitJob.Outcome] {
        var outcomes = [UnitJob.Outcome?](repeating: nil, count: jobs.count)
        for run in Self.runs(of: jobs) {
            if run.count > 1, let batched = try runBatch(run.map { jobs[$0] }) {
                for (index, outcome) in zip(run, batched) { outcomes[index] = outcome }
                continue
            }
            for index in run { outcomes[index] = try runAlone(jobs[index]) }
        }
        return outcomes.map { $0! }
    }

    /// The order units run in, as runs of their indices: each unit alone in queue order, except
    /// that the units of one batched step and owner run together in the place of the first. They
    /// all waited for this group at once, and no order among concurrent requests is promised.
    static func runs(of jobs: [UnitJob]) -> [[Int]] {
        struct BatchKey: Hashable {
            let step: ObjectIdentifier
            let owner: UnitOwner
        }
        var runs: [[Int]] = []
        var runOfBatch: [BatchKey: Int] = [:]
        for (index, job) in jobs.enumerated() {
            guard let batch = job.batch, !job.recordsFailure else {
                runs.append([index])
                continue
            }
            let key = BatchKey(step: batch.stepID, owner: job.owner)
            if let run = runOfBatch[key] {
                runs[run].append(index)
            } else {
                runOfBatch[key] = runs.count
                runs.append([index])
            }
        }
        return runs
    }

    /// Runs the members of one batched step as one batch under one savepoint, and records their
    /// answers with their `Idempotency-Key`s together after it. When the batch throws, it is
    /// rolled back entirely (rows, ledger rows, counters, events and the members' idempotency
    /// claims) and `nil` says to run each member alone.
    private mutating func runBatch(_ jobs: [UnitJob]) throws -> [UnitJob.Outcome]? {
        let stateBefore = connection.activeTransaction?.snapshot
        let claimsBefore = jobs.map { $0.claim?.checkpoint }
        let savepoint = nextSavepoint()
        try connection.executeDeferred(SQL.savepoint(savepoint))
        let units = jobs.map(unit(for:))
        for unit in units { unit.defersAnswer = true }
        do {
            try jobs[0].batch!.runBatch(jobs.map { $0.batch! }, in: units)
            try IdempotencyClaim.recordAll(units.compactMap(\.deferredAnswer), now: now, on: connection)
            try connection.execute(SQL.releaseSavepoint(savepoint))
            return units.map { .success($0.transferResults) }
        } catch {
            try connection.execute(SQL.rollbackToSavepoint(savepoint))
            if let stateBefore { connection.activeTransaction?.restore(stateBefore) }
            try connection.execute(SQL.releaseSavepoint(savepoint))
            for (job, checkpoint) in zip(jobs, claimsBefore) {
                if let checkpoint { job.claim?.restore(checkpoint) }
            }
            return nil
        }
    }

    /// Runs one unit; when it throws, rolls it back alone and records its failure with its
    /// `Idempotency-Key` when it asked for that.
    private mutating func runAlone(_ job: UnitJob) throws -> UnitJob.Outcome {
        let unit = unit(for: job)
        // The counters, events and ledger rows roll back with the savepoint (they are written
        // only at the commit).
        let stateBefore = connection.activeTransaction?.snapshot
        let savepoint = nextSavepoint()
        if isolate { try connection.executeDeferred(SQL.savepoint(savepoint)) }
        do {
            try job.execute(unit)
            if isolate { try connection.execute(SQL.releaseSavepoint(savepoint)) }
            return .success(unit.transferResults)
        } catch {
            guard isolate else { throw error }
            try connection.execute(SQL.rollbackToSavepoint(savepoint))
            if let stateBefore { connection.activeTransaction?.restore(stateBefore) }
            if job.recordsFailure, let claim = job.claim {
                let kernelUnit = UnitOfWork(connection: connection, owner: .kernel, clock: clock, now: now, maxBatchTransfers: maxBatchTransfers)
                do {
                    try claim.recordFailure(error, in: kernelUnit)
                } catch {
                    // Remembering the failure failed too: leave nothing of either.
                    try connection.execute(SQL.rollbackToSavepoint(savepoint))
                    if let stateBefore { connection.activeTransaction?.restore(stateBefore) }
                }
            }
            try connection.execute(SQL.releaseSavepoint(savepoint))
            return .failure(error)
        }
    }

    private func unit(for job: UnitJob) -> UnitOfWork {
        UnitOfWork(connection: connection, owner: job.owner, clock: clock, now: now, maxBatchTransfers: maxBatchTransfers, claim: job.claim)
    }

    private mutating func nextSavepoint() -> Int {
        defer { savepoints += 1 }
        return savepoints
    }
}
