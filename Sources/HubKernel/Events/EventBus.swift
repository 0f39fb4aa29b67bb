import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// Tells in-process readers (the live stream, plugins, the webhook dispatcher) that the event log
/// has grown.
///
/// The log in the database stays the only source of truth: the bus carries just the newest
/// sequence number, and readers fetch what they have not seen. It learns of new events two ways:
/// from writers in this process (immediate: ``committed(through:)`` with the newest sequence, or
/// ``nudge()`` to read it), and a poll of the sequence counter every ``pollInterval`` for events
/// written by other processes sharing the database.
///
/// While live streams are open it also keeps the newest events in memory (``recent``), read once
/// per batch before the streams are told, so that streams do not each read the log.
public final class EventBus: Service, Sendable {
    public let database: Database
    public let pollInterval: Duration
    let recent = RecentEvents()
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        var lastSequence: Int64 = 0
        var subscribers: [UUID: AsyncStream<Int64>.Continuation] = [:]
        /// Subscribers that read ``recent`` (the live streams).
        var streams = 0
    }

    public init(database: Database, pollInterval: Duration = .milliseconds(250), logger: Logger) {
        self.database = database
        self.pollInterval = pollInterval
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the bus to look for new events now (call after committing a write that appended some).
    public func nudge() { wake.yield() }

    /// After a commit in this process whose newest event is `sequence`: tells the subscribers at
    /// once, without reading the counter back on a reader (the writer's commits come hundreds a
    /// second under load). With live streams open, or the sequence unknown, it polls as
    /// ``nudge()`` does, so that the window of ``recent`` events is read before streams are told.
    public func committed(through sequence: Int64?) {
        guard let sequence, state.withLock({ $0.streams == 0 }) else { return nudge() }
        publish(sequence)
    }

    /// The newest sequence the bus has seen.
    public var lastSequence: Int64 { state.withLock { $0.lastSequence } }

    /// Runs `body` with a stream of "the log reached sequence N" signals. Only the newest signal is
    /// buffered, so a slow reader is never flooded; it re-reads the log from its own cursor.
    public func withSubscription<Result: Sendable>(
        _ body: (AsyncStream<Int64>) async throws -> Result
    ) async rethrows -> Result {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1))
        let current = state.withLock { state in
            state.subscribers[id] = continuation
            return state.lastSequence
        }
        continuation.yield(current)
        defer {
            state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            continuation.finish()
        }
        return try await body(stream)
    }

    /// ``withSubscription(_:)`` for a reader of ``recent``: the bus keeps the window filled while at
    /// least one is open.
    func withStreamSubscription<Result: Sendable>(
        _ body: (AsyncStream<Int64>) async throws -> Result
    ) async rethrows -> Result {
        let first = state.withLock { state in
            state.streams += 1
            return state.streams == 1
        }
        // The window went stale while no stream read it: start it now rather than at the next tick.
        if first { nudge() }
        defer { state.withLock { $0.streams -= 1 } }
        return try await withSubscription(body)
    }

    public func run() async throws {
        // Ticks and nudges both lead to one poll; whichever comes first.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [wake, pollInterval] in
                while !Task.isCancelled {
                    try await Task.sleep(for: pollInterval)
                    wake.yield()
                }
            }
            group.addTask { [wakeups] in
                for await _ in wakeups.cancelOnGracefulShutdown() {
                    await self.poll()
                }
            }
            try await group.next()
            group.cancelAll()
        }
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.finish() }
        }
    }

    private func poll() async {
        let sequence: Int64
        do {
            sequence = try await database.read { try EventLog.lastSequence(on: $0) }
        } catch {
            logger.warning("event bus could not read the event sequence", metadata: ["error": "\(error)"])
            return
        }
        if state.withLock({ $0.streams > 0 }) {
            do {
                try await fillRecent(through: sequence)
            } catch {
                // The streams read the database themselves until a later poll fills the window.
                recent.clear()
                logger.warning("event bus could not read the newest events", metadata: ["error": "\(error)"])
            }
        } else {
            recent.clear()
        }
        publish(sequence)
    }

    /// Reads the events after the window's end up to `sequence` into it; a window that covers
    /// nothing yet starts at `sequence`, and one more than its capacity behind skips ahead.
    private func fillRecent(through sequence: Int64) async throws {
        guard var end = recent.end else {
            recent.reset(at: sequence)
            return
        }
        if sequence - end > Int64(recent.capacity) {
            end = sequence - Int64(recent.capacity)
            recent.reset(at: end)
        }
        let limit = recent.capacity
        while end < sequence {
            let after = end
            let page = try await database.read { try EventLog.read(after: after, limit: limit, on: $0) }
            guard let last = page.last else { return }
            recent.append(page)
            end = last.sequence
        }
    }

    func publish(_ sequence: Int64) {
        state.withLock { state in
            guard sequence > state.lastSequence else { return }
            state.lastSequence = sequence
            for continuation in state.subscribers.values { continuation.yield(sequence) }
        }
    }
}
