/// A kind of unit of work that the kernel's writer may run for many callers at once: a rail's
/// step that every request of one kind takes (lock a share, pay it), written once for a whole
/// batch so that what its members share costs one statement instead of one each.
///
/// Callers submit one request each (``PluginContext/write(_:batchedIn:)``). The writer gathers
/// the requests of one step that wait for the same group commit and calls ``body`` once with all
/// of them, in the order they arrived, under one savepoint. Each member has its own
/// ``UnitOfWork``: its own `Idempotency-Key` (``UnitOfWork/answer(_:)``), its transfers' results,
/// its events; all members share the group's connection and transaction. The body reads what
/// its members need in one go (their rows with `IN`, ``UnitOfWork/prefetch(_:)`` for ledger
/// rows), applies each member's rules in order in memory and writes.
///
/// A refusal is a result, not an error. When the body throws, the batch is rolled back and each
/// member runs again alone (the body with one member) under its own savepoint, so one member's
/// error never fails the others. The body must therefore depend only on the database and its
/// members' requests: it may run twice.
///
/// Keep one instance per kind of step (it is the batch's identity): members of the same
/// instance and owner are batched together.
public final class BatchedStep<Request: Sendable, Result: Sendable>: Sendable {
    /// One caller's request and the unit of work that answers it.
    public struct Member {
        public let unit: UnitOfWork
        public let request: Request
    }

    let body: @Sendable ([Member]) throws -> [Result]

    /// `body` answers its members in order: one result per member.
    public init(_ body: @escaping @Sendable ([Member]) throws -> [Result]) {
        self.body = body
    }
}

/// A queued unit's place in a batched step, type-erased for the writer.
protocol BatchMembership: AnyObject, Sendable {
    /// Members with the same id (and owner) run together.
    var stepID: ObjectIdentifier { get }
    /// Runs `members` (all of this one's step) as one batch, member `i` in `units[i]`, and keeps
    /// each member's result.
    func runBatch(_ members: [any BatchMembership], in units: [UnitOfWork]) throws
}

/// One caller's request to a ``BatchedStep``, and its result once the step ran.
final class StepMember<Request: Sendable, Result: Sendable>: BatchMembership, @unchecked Sendable {
    // @unchecked: `result` is written by the step's body on the writer's thread and read once
    // after the group's commit by the same writer task; the two never overlap.
    let step: BatchedStep<Request, Result>
    let request: Request
    var result: Result?

    init(step: BatchedStep<Request, Result>, request: Request) {
        self.step = step
        self.request = request
    }

    var stepID: ObjectIdentifier { ObjectIdentifier(step) }

    func runBatch(_ members: [any BatchMembership], in units: [UnitOfWork]) throws {
        // The writer batches members by step identity, and a step has one Request and Result type.
        let typed = members.map { $0 as! StepMember<Request, Result> }
        let results = try step.body(zip(units, typed).map { BatchedStep.Member(unit: $0, request: $1.request) })
        guard results.count == typed.count else {
            throw UnitError.batchResultCount(results.count, members: typed.count)
        }
        for (member, result) in zip(typed, results) { member.result = result }
    }
}
