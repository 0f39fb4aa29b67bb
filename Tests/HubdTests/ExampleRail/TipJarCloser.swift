import HubKernel
import Logging
import ServiceLifecycle

/// Closes jars whose `closes_at` has passed, every `interval`, emitting `tipjar.jar.closed`.
///
/// A `Service`: the host starts it before the HTTP server and stops it after, and it does its
/// work in `run()` (never in a task started from `init`). Graceful shutdown cancels the loop
/// between ticks; a tick that fails is logged and retried on the next one, since a jar closing a
/// little late is harmless.
struct TipJarCloser: Service {
    let context: PluginContext
    let interval: Duration
    /// Jars closed per unit of work, so a backlog does not hold the writer for long.
    var batchLimit = 100

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    while try await closeDue() == batchLimit {}
                } catch is CancellationError {
                    return
                } catch {
                    context.logger.info("closing expired tip jars failed; retrying next tick", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Closes one batch of due jars, in one unit of work, and returns how many it closed.
    @discardableResult
    func closeDue() async throws -> Int {
        let limit = batchLimit
        // The rows and their `tipjar.jar.closed` events commit together; the unit tells the bus.
        let closed = try await context.write { unit in try TipJarStore.closeDue(limit: limit, on: unit) }
        if !closed.isEmpty {
            context.logger.debug("closed tip jars", metadata: ["tipjar.closed": "\(closed.count)"])
        }
        return closed.count
    }
}
