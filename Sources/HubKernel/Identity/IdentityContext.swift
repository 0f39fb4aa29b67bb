import Logging

/// What every identity service shares: where data lives, the time, the settings, the logger, the vault.
struct IdentityContext: Sendable {
    let database: Database
    let configuration: IdentityConfiguration
    let clock: LedgerClock
    let logger: Logger
    /// Where the JWT signing keys are kept.
    let secrets: SecretsVault

    func now() -> LedgerTimestamp { clock.now() }
}
