import Foundation
public import HubKernel
import Logging
public import Metrics
import ServiceLifecycle
import Synchronization
public import Testing

/// The storage backends a test runs on: SQLite always, PostgreSQL when `HUB_TEST_POSTGRES_URL`
/// names a server (`.ci/run` and `make test` start a throwaway one).
public enum TestBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    public static var postgresURL: String? {
        let value = ProcessInfo.processInfo.environment["HUB_TEST_POSTGRES_URL"]
        return value?.isEmpty == false ? value : nil
    }

    /// The backends available on this machine.
    public static var enabled: [TestBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var testDescription: String { rawValue }
}

/// A database of its own for one test: a temporary SQLite file, or a fresh PostgreSQL schema
/// (selected through libpq's `options=-csearch_path=…`), removed afterwards.
public struct TestDatabase: Sendable {
    public let url: DatabaseURL
    public let cleanup: @Sendable () async -> Void

    public static func make(_ backend: TestBackend) async throws -> TestDatabase {
        let name = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-tests-\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return TestDatabase(url: .sqlite(path: folder.appendingPathComponent("hub.sqlite").path)) {
                try? FileManager.default.removeItem(at: folder)
            }
        case .postgres:
            let base = try #require(TestBackend.postgresURL)
            let schema = try #require(SQLIdentifier(name))
            let admin = try await Database.open(.postgres(uri: base), readerCount: 1)
            _ = try await admin.withWriterConnection { try $0.execute("CREATE SCHEMA \(identifier: schema)") }
            await admin.close()
            let separator = base.contains("?") ? "&" : "?"
            let url = DatabaseURL.postgres(uri: base + separator + "options=-csearch_path%3D\(name)")
            return TestDatabase(url: url) {
                try? FileManager.default.removeItem(atPath: testSecretsKeyFile(for: url))
                if let admin = try? await Database.open(.postgres(uri: base), readerCount: 1) {
                    _ = try? await admin.withWriterConnection { try $0.execute("DROP SCHEMA \(identifier: schema) CASCADE") }
                    await admin.close()
                }
            }
        }
    }
}

/// A clock tests move by hand, to drive hold expiry without waiting.
public final class ManualClock: Sendable {
    private let nanoseconds: Mutex<UInt64>

    public init(start: UInt64 = 1_800_000_000_000_000_000) { nanoseconds = Mutex(start) }

    public func advance(seconds: UInt64) { nanoseconds.withLock { $0 += seconds * 1_000_000_000 } }

    public var ledgerClock: LedgerClock {
        LedgerClock { [self] in LedgerTimestamp(nanoseconds: self.nanoseconds.withLock { $0 }) }
    }
}

/// Opens an empty database of its own on `backend` for `body`, then closes and removes it.
public func withDatabase(on backend: TestBackend, _ body: (Database) async throws -> Void) async throws {
    let test = try await TestDatabase.make(backend)
    let database = try await Database.open(test.url)
    do {
        try await body(database)
    } catch {
        await database.close()
        await test.cleanup()
        throw error
    }
    await database.close()
    await test.cleanup()
}

/// Opens a migrated database on `backend`, runs the ledger's services around `body`, and cleans up.
public func withLedger(
    on backend: TestBackend,
    configuration: LedgerConfiguration = LedgerConfiguration(),
    clock: LedgerClock = .system,
    railMigrations: [(group: MigrationGroup, migrations: [Migration])] = [],
    metrics: (any MetricsFactory)? = nil,
    _ body: (Ledger) async throws -> Void
) async throws {
    try await withDatabase(on: backend) { database in
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)] + railMigrations).migrate(database)
        var configuration = configuration
        if configuration.expiryInterval == .seconds(1) { configuration.expiryInterval = .seconds(3600) }
        let ledger = Ledger(database: database, configuration: configuration, clock: clock, logger: Logger(label: "test"), metrics: metrics)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in ledger.services { group.addTask { try await service.run() } }
            do {
                try await body(ledger)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }
}

/// Shorthands for building test ledgers.
extension Ledger {
    /// Creates `code` with scale 2 and returns it.
    public func makeAsset(_ code: String, scale: UInt8 = 2) async throws -> Asset {
        let result = try await createAsset(NewAsset(code: AssetCode(code)!, scale: scale, name: "\(code) test asset"))
        return try #require(result.value)
    }

    /// Creates a wallet (cannot go negative) for `owner` in `asset`.
    public func makeWallet(
        _ asset: Asset,
        owner: String = "u-\(UInt32.random(in: 0...UInt32.max))",
        flags: AccountFlags = [.debitsMustNotExceedCredits]
    )
        async throws -> Account
    {
        let result = try await createAccounts([NewAccount(id: .random(), asset: asset.code, owner: .user(owner), flags: flags)])
        return try #require(result[0].value)
    }

    /// Issues `amount` of `asset` into `account` and expects success.
    @discardableResult
    public func mint(_ amount: UInt128, of asset: Asset, to account: Account) async throws -> Transfer {
        let result = try await submit(
            TransferRequest(id: .random(), action: .post(debit: asset.issuanceAccountID, credit: account.id, amount: amount, asset: asset.code))
        )
        return try #require(result.transfer, "mint failed: \(String(describing: result.error))")
    }

    public func balance(_ account: Account) async throws -> Account {
        try #require(try await self.account(account.id))
    }

    public func expectVerified() async throws {
        let report = try await LedgerVerifier.verify(database)
        #expect(report.passed, "\(report)")
    }
}
