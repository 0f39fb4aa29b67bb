public import ServiceLifecycle
import Synchronization

/// A stopping hub's first step: `/readyz` answers 503 for ``delay`` while the server still serves,
/// so a load balancer's health checks move new requests to other instances before this one
/// stops taking any; then the server stops (finishing the requests it has), then the kernel's
/// services (the writer commits what it was given).
///
/// It is a `Service` placed after the application in one `ServiceGroup`: the group shuts services
/// down in reverse order, so this one's graceful shutdown comes first and the server's waits for
/// it to return.
public final class Drain: Service, Sendable {
    public let delay: Duration
    private let draining = Atomic<Bool>(false)

    public init(delay: Duration) {
        self.delay = delay
    }

    /// Whether the hub is stopping (readiness fails).
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    public func run() async throws {
        // Returns when the group begins to shut down (or the task is cancelled).
        try? await gracefulShutdown()
        draining.store(true, ordering: .relaxed)
        if delay > .zero { try? await Task.sleep(for: delay) }
    }
}
