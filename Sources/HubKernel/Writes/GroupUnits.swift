/// The units of work of one group, run in its database transaction one after another, each under
/// its own savepoint (when the group holds anything else), with each one's outcome.
///
/// On PostgreSQL a unit's last writes and the release of its savepoint are not waited for: they
/// travel with the next unit's first round trip, one round trip less per unit. An error in them
/// then surfaces while a later unit runs. The connection numbers its statements
/// (``StatementNumbering``), so the first failed statement names the unit it belongs to: the
/// writer rolls back to that unit's savepoint, which undoes the units after it too, fails that
/// unit alone, and runs the later ones again. A body may therefore run more than once; it acts
/// only through its unit (``UnitOfWork``), so running it again on the rolled-back state is safe.
/// The group's last unit waits for its release: its own errors surface while it is current.
struct GroupUnits {
    let jobs: [UnitJob]
    /// Whether each unit has a savepoint; without one (a lone unit) its error fails the group.
    let isolated: Bool
    let connection: any SQLConnection
    let clock: LedgerClock
    let now: LedgerTimestamp
    let maxBatchTransfers: Int

    /// What a unit's rollback puts back: the statement it began at, the transaction's counters and
    /// its request's idempotency claim as they were before it.
    private struct Mark {
        var firstStatement: Int
        var counters: TransactionCounters.Snapshot?
        var claim: IdempotencyClaim.Snapshot?
    }

    func run() throws -> [UnitJob.Outcome] {
        let numbering = connection as? any StatementNumbering
        numbering?.clearFailure()
        var outcomes: [UnitJob.Outcome] = []
        outcomes.reserveCapacity(jobs.count)
        var marks: [Mark] = []
        var index = 0
        while index < jobs.count {
            let job = jobs[index]
            let mark = Mark(
                firstStatement: numbering?.statementsSent ?? 0,
                counters: connection.activeCounters?.snapshot,
                claim: job.claim?.snapshot
            )
            marks.removeLast(marks.count - index)
            marks.append(mark)
            var outcome: UnitJob.Outcome
            do {
                if isolated { try connection.executeDeferred(SQL.savepoint(index)) }
                let unit = UnitOfWork(
                    connection: connection,
                    owner: job.owner,
                    clock: clock,
                    now: now,
                    maxBatchTransfers: maxBatchTransfers,
                    claim: job.claim
                )
                try job.execute(unit)
                if isolated {
                    let release = SQL.releaseSavepoint(index)
                    if index == jobs.count - 1 {
                        try connection.execute(release)
                    } else {
                        try connection.executeDeferred(release)
                    }
                }
                outcome = .success(unit.transferResults)
            } catch {
                outcome = .failure(error)
                // It will be rolled back: first see whether what it sent ahead, or an earlier
                // unit's writes still on their way, failed.
                if isolated { numbering?.discardPending() }
            }
            if isolated, let failed = numbering?.firstFailure {
                if failed.statement < mark.firstStatement {
                    // An earlier unit's deferred statement: that unit fails, and the ones after
                    // it (this one included) run again.
                    guard let owner = marks.lastIndex(where: { $0.firstStatement <= failed.statement }) else {
                        throw failed.error  // the group's own writes, before its first unit
                    }
                    // Latest first: a claim two of these units share ends as it was before the first.
                    for later in (owner..<marks.count).reversed() {
                        if let claim = marks[later].claim { jobs[later].claim?.restore(claim) }
                    }
                    outcomes.removeLast(outcomes.count - owner)
                    outcomes.append(try fail(owner, failed.error, mark: marks[owner]))
                    index = owner + 1
                    continue
                }
                // This unit's own statement failed. A body that threw keeps its error (it may
                // have turned the database's into its own); one that went on as if nothing
                // failed gets the database's.
                if case .success = outcome { outcome = .failure(failed.error) }
            }
            if case .failure(let error) = outcome {
                guard isolated else { throw error }
                if let claim = mark.claim { job.claim?.restore(claim) }
                outcome = try fail(index, error, mark: mark)
            }
            outcomes.append(outcome)
            index += 1
        }
        return outcomes
    }

    /// Rolls unit `index` back to its savepoint (and the counters with it), records its failure
    /// with its request's `Idempotency-Key` when its error is the request's answer, and releases
    /// the savepoint.
    private func fail(_ index: Int, _ error: any Error, mark: Mark) throws -> UnitJob.Outcome {
        try rollBack(index, mark: mark)
        let job = jobs[index]
        if job.recordsFailure, let claim = job.claim {
            let kernelUnit = UnitOfWork(connection: connection, owner: .kernel, clock: clock, now: now, maxBatchTransfers: maxBatchTransfers)
            do {
                try claim.recordFailure(error, in: kernelUnit)
            } catch {
                // Remembering the failure failed too: leave nothing of either.
                try rollBack(index, mark: mark)
            }
        }
        try connection.execute(SQL.releaseSavepoint(index))
        return .failure(error)
    }

    private func rollBack(_ index: Int, mark: Mark) throws {
        let numbering = connection as? any StatementNumbering
        numbering?.discardPending()
        try connection.execute(SQL.rollbackToSavepoint(index))
        numbering?.clearFailure()
        // The counters are written only at the commit: they roll back here, in memory.
        if let counters = mark.counters { connection.activeCounters?.restore(counters) }
    }
}

extension SQL {
    /// Savepoint names are the unit's position in its group: digits the kernel chose, not values.
    static func savepoint(_ index: Int) -> SQL { SQL(parts: [.text("SAVEPOINT unit_\(index)")]) }
    static func releaseSavepoint(_ index: Int) -> SQL { SQL(parts: [.text("RELEASE SAVEPOINT unit_\(index)")]) }
    static func rollbackToSavepoint(_ index: Int) -> SQL { SQL(parts: [.text("ROLLBACK TO SAVEPOINT unit_\(index)")]) }
}
