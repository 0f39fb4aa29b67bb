import HubKernel
import Logging
import ServiceLifecycle

/// Background upkeep, every sweep interval: expires sessions whose time is up (TIMEOUT, releasing
/// any held shares), expires lapsed locks (voiding their holds and reopening their shares), and
/// rotates EIDs that have been on air longer than the rotation interval.
///
/// Each step runs in batches, one unit of work of the rail each, so a backlog never holds the ledger's
/// writer for long; a failed tick is logged and retried on the next, since each step re-reads
/// what is due.
struct SessionSweeper: Service {
    let service: SessionService
    let interval: Duration
    let logger: Logger
    var batchLimit = 100

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    try await sweep()
                } catch is CancellationError {
                    return
                } catch {
                    logger.info("ble-sessions sweep failed; retrying next tick", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// One full pass; returns what it did, for tests.
    @discardableResult
    func sweep() async throws -> (locks: Int, sessions: Int, rotations: Int) {
        var totals = (locks: 0, sessions: 0, rotations: 0)
        while true {
            let (sessions, locks) = try await expireDue()
            totals.sessions += sessions
            totals.locks += locks
            if sessions < batchLimit && locks < batchLimit { break }
        }
        if service.configuration.eidRotationSeconds > 0 {
            while true {
                let count = try await rotateEIDs()
                totals.rotations += count
                if count < batchLimit { break }
            }
        }
        return totals
    }

    /// Expires due sessions, then due locks, at one reading of the clock in one transaction:
    /// a lock that runs out with its session is released by the session's expiry rather than
    /// expired on its own, whatever the timing of the pass.
    private func expireDue() async throws -> (sessions: Int, locks: Int) {
        let (limit, source) = (batchLimit, service.source)
        return try await service.context.write { tx in
            let dueSessions = try SessionStore.dueSessions(now: tx.now, limit: limit, on: tx.connection)
            for var session in dueSessions {
                let released = try SessionService.releaseHeld(of: &session, at: tx.now, on: tx)
                session.status = .expired
                session.endedAt = tx.now
                try SessionStore.update(session, on: tx.connection)
                try tx.append(
                    [SessionEvents.event(SessionEvents.expired, session, released: released, at: tx.now, source: source)])
            }
            let dueLocks = try SessionStore.dueLocks(now: tx.now, limit: limit, on: tx.connection)
            for lock in dueLocks {
                // Re-read under the session's row lock: a pay may have settled it meanwhile.
                guard var session = try SessionStore.session(lock.sessionID, forUpdate: true, on: tx.connection),
                    let current = try SessionStore.locks(session: lock.sessionID, state: .held, on: tx.connection).first(where: { $0.id == lock.id })
                else { continue }
                try SessionService.expire(current, of: &session, at: tx.now, on: tx, source: source)
            }
            return (dueSessions.count, dueLocks.count)
        }
    }

    private func rotateEIDs() async throws -> Int {
        let (limit, source) = (batchLimit, service.source)
        let (every, grace) = (service.configuration.eidRotationSeconds, service.configuration.eidGraceSeconds)
        return try await service.context.write { tx in
            guard tx.now.nanoseconds >= UInt64(every) * 1_000_000_000 else { return 0 }
            let issuedBefore = LedgerTimestamp(nanoseconds: tx.now.nanoseconds - UInt64(every) * 1_000_000_000)
            let due = try SessionStore.rotationDue(issuedBefore: issuedBefore, limit: limit, on: tx.connection)
            for var session in due {
                try SessionService.rotate(&session, grace: grace, at: tx.now, on: tx, source: source)
            }
            return due.count
        }
    }
}
