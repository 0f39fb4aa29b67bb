public import Logging
public import ServiceLifecycle

/// Runs `work` on one instance at a time among those sharing the database: the holder of `lease`.
/// Every instance runs this service; the others wait, trying the lease every ``renewEvery``, and
/// the first to find it expired takes over (within the lease's time to live of the holder's
/// death). The holder renews while `work` runs; when a renewal fails, `work` is cancelled. Writes
/// `work` makes are fenced with ``Lease/fence(on:)``, so even a holder that is paused past its
/// lease cannot commit after a takeover.
public struct LeaderService: Service {
    public let lease: Lease
    public let renewEvery: Duration
    private let logger: Logger
    private let work: @Sendable (Lease) async throws -> Void

    private struct LeadershipEnded: Error {}

    public init(lease: Lease, logger: Logger, work: @escaping @Sendable (Lease) async throws -> Void) {
        self.lease = lease
        self.renewEvery = lease.ttl / 3
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        let (lease, renewEvery, logger, work) = (self.lease, self.renewEvery, self.logger, self.work)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let leading: Bool
                do {
                    leading = try await lease.acquireOrRenew()
                } catch {
                    logger.warning("could not try the lease", metadata: ["hub.lease": "\(lease.name)", "error": "\(error)"])
                    leading = false
                }
                guard leading else {
                    try? await Task.sleep(for: renewEvery)
                    continue
                }
                logger.info("leading", metadata: ["hub.lease": "\(lease.name)", "hub.lease.epoch": "\(lease.epoch ?? 0)"])
                await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await work(lease) }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: renewEvery)
                            guard (try? await lease.acquireOrRenew()) == true else { throw LeadershipEnded() }
                        }
                    }
                    // Whichever ends first (the work, or the lease) ends both.
                    _ = try? await group.next()
                    group.cancelAll()
                }
                if !Task.isCancelled {
                    logger.notice("no longer leading", metadata: ["hub.lease": "\(lease.name)"])
                }
            }
        }
        // Stopping: hand the lease on at once rather than after it expires.
        if lease.epoch != nil { try? await lease.release() }
    }
}
