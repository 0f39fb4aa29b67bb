public import Hummingbird
import Synchronization

/// A request's `Idempotency-Key`, handed by ``IdempotencyMiddleware`` to the unit of work that
/// answers the request (``Ledger/respond(as:_:)``), which records the key and its reply in the same
/// transaction as its writes: one commit for both, and no state in between to recover from.
///
/// It travels as a task-local value, so handlers and services pass nothing along.
final class IdempotencyClaim: Sendable {
    @TaskLocal static var current: IdempotencyClaim?

    let scope: String
    let key: String
    let requestHash: [UInt8]
    let clock: LedgerClock
    let retention: Duration
    /// The reply a failed request is remembered with (a 4xx problem), or `nil` for a failure a
    /// retry may cure (5xx): then the key stays free.
    let replyForError: @Sendable (any Error) -> HTTPReply?
    /// Tells the middleware that the request's route is marked ``AnswersInUnit``.
    let markRouteAnsweredInUnit: @Sendable () -> Void
    private let state = Mutex((taken: false, recorded: false))

    init(
        scope: String,
        key: String,
        requestHash: [UInt8],
        clock: LedgerClock,
        retention: Duration,
        replyForError: @escaping @Sendable (any Error) -> HTTPReply?,
        markRouteAnsweredInUnit: @escaping @Sendable () -> Void = {}
    ) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
        self.clock = clock
        self.retention = retention
        self.replyForError = replyForError
        self.markRouteAnsweredInUnit = markRouteAnsweredInUnit
    }

    /// The first unit of the request takes the claim; later ones (a handler with several) do not.
    func take() -> Bool {
        state.withLock { state in
            defer { state.taken = true }
            return !state.taken
        }
    }

    var isTaken: Bool { state.withLock { $0.taken } }

    /// Whether the claim is taken and recorded, to be put back (``restore(_:)``) when the
    /// units that changed it are rolled back and run again (a batched step's fallback).
    var checkpoint: (taken: Bool, recorded: Bool) { state.withLock { $0 } }

    func restore(_ checkpoint: (taken: Bool, recorded: Bool)) {
        state.withLock { $0 = checkpoint }
    }

    /// Whether a unit recorded the key (then the middleware has nothing left to store).
    var recorded: Bool { state.withLock { $0.recorded } }

    /// Records `reply` for the key inside `unit`; throws ``IdempotencyConflict`` when a concurrent
    /// request recorded it first (which rolls this unit back). A ``HTTPReply/noStore`` reply is
    /// not recorded: the key stays free, so a retry runs the request again.
    func record(_ reply: HTTPReply, in unit: UnitOfWork) throws {
        guard !reply.noStore else { return }
        let now = unit.now
        let cutoff = LedgerTimestamp(nanoseconds: now.nanoseconds &- min(now.nanoseconds, retention.nanoseconds))
        switch try IdempotencyStore.record(
            scope: scope,
            key: key,
            requestHash: requestHash,
            reply: reply,
            now: now,
            cutoff: cutoff,
            on: unit.database
        ) {
        case .fresh: state.withLock { $0.recorded = true }
        case .replay(let stored): throw IdempotencyConflict.replay(stored)
        case .mismatch: throw IdempotencyConflict.mismatch
        }
    }

    /// Records the answers the members of a batched step deferred (``UnitOfWork/answer(_:)``),
    /// together: one statement on PostgreSQL instead of one round trip each.
    /// - Throws: when two answers name one key, or another request recorded one of the keys
    ///   first; the batch is then rolled back and its members run again one by one, where each
    ///   such member gets what its key holds.
    static func recordAll(_ answers: [(claim: IdempotencyClaim, reply: HTTPReply)], now: LedgerTimestamp, on connection: any SQLConnection)
        throws
    {
        guard !answers.isEmpty else { return }
        struct KeyName: Hashable {
            let scope: String
            let key: String
        }
        guard Set(answers.map { KeyName(scope: $0.claim.scope, key: $0.claim.key) }).count == answers.count else {
            throw IdempotencyConflict.mismatch
        }
        for (retention, sameRetention) in Dictionary(grouping: answers, by: \.claim.retention) {
            let cutoff = LedgerTimestamp(nanoseconds: now.nanoseconds &- min(now.nanoseconds, retention.nanoseconds))
            let rows = sameRetention.map {
                IdempotencyStore.Answer(scope: $0.claim.scope, key: $0.claim.key, requestHash: $0.claim.requestHash, reply: $0.reply)
            }
            guard try IdempotencyStore.recordAll(rows, now: now, cutoff: cutoff, on: connection) == rows.count else {
                throw IdempotencyConflict.mismatch
            }
        }
        for answer in answers { answer.claim.state.withLock { $0.recorded = true } }
    }

    /// After a unit's body failed and was rolled back: remembers the failure's reply when it is
    /// one a retry would get again, unless another unit of the request answered already.
    func recordFailure(_ error: any Error, in unit: UnitOfWork) throws {
        guard !(error is IdempotencyConflict), let reply = replyForError(error), take() else { return }
        try record(reply, in: unit)
    }
}

/// The key was recorded by another request while this one ran.
enum IdempotencyConflict: Error, Sendable {
    /// The same request, already answered: this is its reply.
    case replay(HTTPReply)
    /// Another request.
    case mismatch
}

extension Ledger {
    /// Runs `body` as one unit of work of `owner` that answers an HTTP request with its reply.
    /// When the request carries an `Idempotency-Key`, the key and the reply (or the problem a
    /// failure is answered with) are recorded in the same unit: one commit for the write and its
    /// key.
    public func respond(as owner: UnitOwner = .kernel, _ body: @escaping @Sendable (UnitOfWork) throws -> HTTPReply) async throws -> Response {
        try await write(as: owner, recordingFailure: true) { unit in
            let reply = try body(unit)
            try unit.answer(reply)
            return reply
        }.response()
    }

    /// Submits `requests` for an HTTP request and answers with `reply(results)`. Without an
    /// `Idempotency-Key` the transfers join the writer's shared ledger batch (the fastest path);
    /// with one they run as a unit of work that records the key and the reply with them.
    public func respond(
        submitting requests: [TransferRequest],
        _ reply: @escaping @Sendable ([TransferResult]) throws -> HTTPReply
    ) async throws -> Response {
        if let claim = IdempotencyClaim.current, !claim.isTaken {
            return try await respond { unit in try reply(try unit.submit(requests)) }
        }
        return try reply(try await submit(requests)).response()
    }
}

extension PluginContext {
    /// ``Ledger/respond(as:_:)`` as this plugin: a unit of work answering an HTTP request, with the
    /// request's `Idempotency-Key` recorded in it.
    public func respond(_ body: @escaping @Sendable (UnitOfWork) throws -> HTTPReply) async throws -> Response {
        try await kernelLedger.respond(as: unitOwner, body)
    }
}
