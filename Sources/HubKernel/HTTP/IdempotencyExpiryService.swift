public import Logging
public import ServiceLifecycle

/// Deletes idempotency keys past their retention period, every
/// ``IdempotencyConfiguration/expiryInterval``.
public struct IdempotencyExpiryService: Service {
    let store: IdempotencyStore
    let interval: Duration
    let logger: Logger

    public init(database: Database, clock: LedgerClock = .system, configuration: IdempotencyConfiguration = .init(), logger: Logger) {
        self.store = IdempotencyStore(database: database, clock: clock, configuration: configuration)
        self.interval = configuration.expiryInterval
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await store.expire()
                    if removed > 0 { logger.debug("expired idempotency keys", metadata: ["count": "\(removed)"]) }
                } catch {
                    logger.warning("idempotency key expiry failed; retrying next tick", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
