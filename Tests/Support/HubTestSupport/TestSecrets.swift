import Foundation
public import HubKernel
import Logging

/// A key file path of its own (in a new temporary folder, which the caller removes).
public func testSecretsKeyFolder() -> String {
    NSTemporaryDirectory() + "hubd-secrets-test-\(UUID().uuidString)"
}

/// A prepared secrets vault on a migrated `database`, with a new key file in a folder of its own
/// (`(vault.keyFile as NSString).deletingLastPathComponent`, for the caller to remove).
public func preparedTestVault(_ database: Database, clock: LedgerClock = .system) async throws -> SecretsVault {
    let vault = SecretsVault(database: database, keyFile: testSecretsKeyFolder() + "/secrets.key", clock: clock, logger: Logger(label: "test"))
    try await vault.prepare()
    return vault
}
