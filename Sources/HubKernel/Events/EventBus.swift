import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// Tells in-process readers (the live stream, plugins, the webhook dispatcher) that the event log
/// has grown.
///
/// The log in the database stays the only source of truth: the bus carries just the newest
/// sequence number, and readers fetch what they have not seen. It learns of new events two ways:
/// ``nudge()`` from writers in this process (immediate), and a poll of the sequence counter every
/// ``pollInterval`` for events written by other processes sharing the database.
public final class EventBus: Service, Sendable {
    public let database: Database
    public let pollInterval: Duration
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        var lastSequence: Int64 = 0
        var subscribers: [UUID: AsyncStream<Int64>.Continuation] = [:]
    }

    public init(database: Database, pollInterval: Duration = .milliseconds(250), logger: Logger) {
        self.database = database
        self.pollInterval = pollInterval
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the bus to look for new events now (call after committing a write that appended some).
    public func nudge() { wake.yield() }

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
        do {
            let sequence = try await database.read { try EventLog.lastSequence(on: $0) }
            publish(sequence)
        } catch {
            logger.warning("event bus could not read the event sequence", metadata: ["error": "\(error)"])
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
