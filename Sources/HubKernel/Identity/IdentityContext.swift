import Logging

/// What every identity service shares: where data lives, the time, the settings, the logger.
struct IdentityContext: Sendable {
    let database: Database
    let configuration: IdentityConfiguration
    let clock: LedgerClock
    let logger: Logger

    func now() -> LedgerTimestamp { clock.now() }
}
