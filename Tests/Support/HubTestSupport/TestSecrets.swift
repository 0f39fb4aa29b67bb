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

/// The secrets key file of a test database: `secrets.key` beside a SQLite file (removed with its
/// folder); for a PostgreSQL schema, a file named after the schema in the temporary folder, which
/// ``TestDatabase``'s cleanup removes with the schema.
public func testSecretsKeyFile(for url: DatabaseURL) -> String {
    switch url {
    case .sqlite(let path):
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "secrets.key" : folder + "/secrets.key"
    case .postgres(let uri):
        let schema = uri.range(of: "csearch_path%3D").map { String(uri[$0.upperBound...].prefix { $0 != "&" }) } ?? "default"
        return NSTemporaryDirectory() + "hubd-test-secrets/\(schema).key"
    }
}
