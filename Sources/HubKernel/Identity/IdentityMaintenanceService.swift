public import Logging
public import ServiceLifecycle

/// Purges expired refresh tokens and wallet challenges every `interval` (hourly by default), so
/// the identity tables stay small on a hub that runs for months.
public struct IdentityMaintenanceService: Service {
    let identity: Identity
    let interval: Duration
    let logger: Logger

    public init(identity: Identity, interval: Duration = .seconds(3600), logger: Logger) {
        self.identity = identity
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let purged = try await identity.purgeExpired()
                    if purged > 0 { logger.debug("purged expired sessions and challenges", metadata: ["count": "\(purged)"]) }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("purging expired sessions failed; retrying next tick", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
