extension Ledger {
    /// Runs `body` as one unit of work of `owner`: its statements, transfers and events commit
    /// together, group-committed with every other writer's, or not at all when it throws (then
    /// the error is the caller's and the rest of the group still commits).
    ///
    /// Rails call it through ``PluginContext/write(_:)``, which names them as the owner.
    /// - Throws: the body's error; ``LedgerError/writerNotRunning`` when the writer service is not
    ///   running; a ``DatabaseError`` when the group's transaction failed.
    public func write<Result: Sendable>(
        as owner: UnitOwner = .kernel,
        _ body: @escaping @Sendable (UnitOfWork) throws -> Result
    ) async throws -> Result {
        try await write(as: owner, recordingFailure: false, body)
    }

    /// ``write(as:_:)``; with `recordingFailure`, a body's error is the request's answer and is
    /// recorded with its `Idempotency-Key` (see ``respond(as:_:)``).
    func write<Result: Sendable>(
        as owner: UnitOwner,
        recordingFailure: Bool,
        _ body: @escaping @Sendable (UnitOfWork) throws -> Result
    ) async throws -> Result {
        // Read here, on the caller's task: the body runs on the writer's thread.
        let claim = IdempotencyClaim.current
        return try await withCheckedThrowingContinuation { continuation in
            let box = ResultBox<Result>()
            writer.enqueue(
                .unit(
                    UnitJob(
                        owner: owner,
                        execute: { unit in box.value = try body(unit) },
                        claim: claim,
                        recordsFailure: recordingFailure && claim != nil,
                        finish: { outcome in continuation.resume(with: outcome.map { _ in box.value! }) }
                    )
                )
            )
        }
    }

    /// Runs `request` through `step` as a unit of work of `owner`, batched with the other
    /// requests of the step waiting for the same group commit (see ``BatchedStep``).
    ///
    /// Rails call it through ``PluginContext/write(_:batchedIn:)``.
    /// - Throws: as ``write(as:_:)``; the error of this member alone.
    public func write<Request: Sendable, Result: Sendable>(
        as owner: UnitOwner = .kernel,
        _ request: Request,
        batchedIn step: BatchedStep<Request, Result>
    ) async throws -> Result {
        let claim = IdempotencyClaim.current
        let member = StepMember(step: step, request: request)
        return try await withCheckedThrowingContinuation { continuation in
            writer.enqueue(
                .unit(
                    UnitJob(
                        owner: owner,
                        execute: { unit in try member.runBatch([member], in: [unit]) },
                        claim: claim,
                        batch: member,
                        finish: { outcome in continuation.resume(with: outcome.map { _ in member.result! }) }
                    )
                )
            )
        }
    }
}

/// Carries a unit's result from the writer's thread (where the body sets it) to its `finish`
/// (which runs after the commit, on the same task).
private final class ResultBox<Value>: @unchecked Sendable {
    // @unchecked: written once by the body on the writer's thread, read once after the group's
    // commit by the same writer task; the two never overlap.
    var value: Value?
}
