import Foundation
import Synchronization

// The writer's queue is internal: the tests that need one group build in debug, where every
// module is testable.
@testable public import HubKernel

/// Runs `operations` as one group of the ledger's writer: holds the writer with a unit of its
/// own, starts each operation once the one before is queued (so they queue in order), then lets
/// the writer go and returns their results in order. Batched steps run their queued members
/// together (``BatchedStep``), so this is how a test makes a batch of its requests. An
/// operation refused before it reaches the writer finishes while the writer is held; the next one
/// then starts without waiting for it to queue.
public func inOneWriterGroup<Value: Sendable>(
    _ ledger: Ledger,
    _ operations: [@Sendable () async throws -> Value]
) async throws -> [Value] {
    let started = Atomic<Bool>(false)
    let gate = DispatchSemaphore(value: 0)
    // The writer runs units on its own thread, not the cooperative pool, so this wait blocks no task.
    let holding = Task {
        try await ledger.write { _ in
            started.store(true, ordering: .sequentiallyConsistent)
            gate.wait()
        }
    }
    while !started.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(2)) }
    var tasks: [Task<Value, any Error>] = []
    for operation in operations {
        let waiting = ledger.writer.queuedCount
        let finished = Atomic<Bool>(false)
        tasks.append(
            Task {
                defer { finished.store(true, ordering: .sequentiallyConsistent) }
                return try await operation()
            }
        )
        while ledger.writer.queuedCount == waiting && !finished.load(ordering: .sequentiallyConsistent) {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
    gate.signal()
    try await holding.value
    var results: [Value] = []
    for task in tasks { results.append(try await task.value) }
    return results
}
