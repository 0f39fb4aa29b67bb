public import Logging
public import ServiceLifecycle

/// Voids holds whose timeout has passed, every `interval`, through the ledger's writer so expiry is
/// serialised with transfers (a post racing an expiry sees one or the other, never both).
public struct PendingExpiryService: Service {
    let ledger: Ledger
    let interval: Duration
    let logger: Logger

    public init(ledger: Ledger, interval: Duration, logger: Logger) {
        self.ledger = ledger
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    let limit = ledger.configuration.expiryBatchLimit
                    // Keep going while whole pages expire: a backlog clears now, not one page per tick.
                    while try await ledger.expireDue(limit: limit) == limit {}
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("expiring holds failed; retrying next tick", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
