import Foundation
import HubKernel
import HubServer
import HubTestSupport
import Logging
import ServiceLifecycle
import Testing

/// `hubd backup` and `hubd restore` run as an operator would, against a hub that is writing.
@Suite("hubd backup and restore", .timeLimit(.minutes(3)))
struct BackupCommandTests {
    /// Runs the built `hubd`.
    func hubd(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await run(CommandLineTests.hubdPath, arguments)
    }

    func transfers(in path: String) async throws -> Int64 {
        let database = try await Database.open(.sqlite(path: path), readerCount: 1)
        let count = try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM ledger_transfers")?.int("n") } ?? -1
        await database.close()
        return count
    }

    @Test("a backup taken while transfers commit is one moment of the hub: its ledger verifies, and it restores")
    func backupUnderLoad() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let live = folder + "/hub.sqlite"
        let copy = folder + "/copy.sqlite"
        let database = try await Database.open(.sqlite(path: live))
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
        let ledger = Ledger(database: database, logger: Logger(label: "test"))
        let backedUp: (status: Int32, output: String) = try await withThrowingTaskGroup(of: Void.self) { group in
            for service in ledger.services { group.addTask { try await service.run() } }
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000_000, of: usd, to: alice)
            // Load: transfers keep committing until the backup is done.
            let load = Task {
                while !Task.isCancelled {
                    _ = try await ledger.submit([
                        TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code))
                    ])
                }
            }
            // The load must have committed some transfers before the backup starts (on a busy
            // machine 200 ms were sometimes not enough for one), so the copy is a moment during it.
            for _ in 0..<600 {
                let committed = try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM ledger_transfers")?.int("n") ?? 0 }
                if committed >= 5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let result = try await hubd(["backup", "--database-url", "sqlite:\(live)", copy])
            try await Task.sleep(for: .milliseconds(200))
            load.cancel()
            _ = try? await load.value
            group.cancelAll()
            return result
        }
        await database.close()
        #expect(backedUp.status == 0, "\(backedUp.output)")
        #expect(backedUp.output.contains("integrity ok"))
        #expect(backedUp.output.contains("secrets key"), "the operator is reminded to keep the key apart")

        let verified = try await hubd(["verify", "--database-url", "sqlite:\(copy)"])
        #expect(verified.status == 0, "\(verified.output)")
        let inCopy = try await transfers(in: copy)
        let inLive = try await transfers(in: live)
        #expect(inCopy > 1 && inCopy < inLive, "the copy is a moment during the load: \(inCopy) of \(inLive)")

        // Restore the copy over the (stopped) live hub: it is then the copy, and verifies.
        let restored = try await hubd(["restore", "--database-url", "sqlite:\(live)", copy])
        #expect(restored.status == 0, "\(restored.output)")
        #expect(try await transfers(in: live) == inCopy)
        #expect(try await hubd(["verify", "--database-url", "sqlite:\(live)"]).status == 0)
    }

    @Test("refusals: an existing file, a PostgreSQL hub, a served database, a file that is not a hub's; each changes nothing")
    func refusals() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let live = folder + "/hub.sqlite"
        let database = try await Database.open(.sqlite(path: live))
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
        await database.close()

        let existing = folder + "/existing"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let overwrite = try await hubd(["backup", "--database-url", "sqlite:\(live)", existing])
        #expect(overwrite.status != 0 && overwrite.output.contains("exists"), "\(overwrite.output)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")

        let postgres = try await hubd(["backup", "--database-url", "postgres://nobody@127.0.0.1:1/none", folder + "/pg.sqlite"])
        #expect(postgres.status != 0 && postgres.output.contains("pg_dump"), "\(postgres.output)")

        let notAHub = try await hubd(["restore", "--database-url", "sqlite:\(live)", existing])
        #expect(notAHub.status != 0, "\(notAHub.output)")

        // A hub serving the database holds its lock: the restore is refused and the file untouched.
        let backup = folder + "/backup.sqlite"
        #expect(try await hubd(["backup", "--database-url", "sqlite:\(live)", backup]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: live))
        let serving = try ServingLock.serving(.sqlite(path: live))
        let refused = try await hubd(["restore", "--database-url", "sqlite:\(live)", backup])
        #expect(refused.status != 0 && refused.output.contains("serving"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: live)) == before)
        withExtendedLifetime(serving) {}
    }

    @Test(
        "a PostgreSQL hub backs up with pg_dump while it writes and restores with pg_restore into a new database that verifies",
        arguments: TestBackend.enabled.filter { $0 == .postgres }
    )
    func postgresDumpAndRestore(backend: TestBackend) async throws {
        let base = try #require(TestBackend.postgresURL)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-pgdump-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dump = folder + "/hub.dump"
        let restoredName = "hub_restore_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let server = try #require(base.range(of: "/", options: .backwards)).lowerBound
        let restoredURL = String(base[..<server]) + "/" + restoredName

        let test = try await TestDatabase.make(.postgres)
        guard case .postgres(let liveURI) = test.url else { return }
        let schema = try #require(liveURI.components(separatedBy: "search_path%3D").last)
        let database = try await Database.open(test.url, readerCount: 1)
        let admin = try await Database.open(.postgres(uri: base), readerCount: 1)
        do {
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let ledger = Ledger(database: database, logger: Logger(label: "test"))
            let dumped: (status: Int32, output: String) = try await withThrowingTaskGroup(of: Void.self) { group in
                for service in ledger.services { group.addTask { try await service.run() } }
                let usd = try await ledger.makeAsset("USD")
                let alice = try await ledger.makeWallet(usd)
                let bob = try await ledger.makeWallet(usd)
                try await ledger.mint(1_000_000, of: usd, to: alice)
                let load = Task {
                    while !Task.isCancelled {
                        _ = try await ledger.submit([
                            TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code))
                        ])
                    }
                }
                try await Task.sleep(for: .milliseconds(200))
                let result = try await run("/usr/bin/pg_dump", ["--format=custom", "--schema=\(schema)", "--file=\(dump)", base])
                load.cancel()
                _ = try? await load.value
                group.cancelAll()
                return result
            }
            #expect(dumped.status == 0, "\(dumped.output)")

            _ = try await admin.withWriterConnection { try $0.executeScript("CREATE DATABASE \(restoredName)") }
            let restored = try await run("/usr/bin/pg_restore", ["--no-owner", "--dbname=\(restoredURL)", dump])
            #expect(restored.status == 0, "\(restored.output)")
            let copy = try await Database.open(.postgres(uri: restoredURL + "?options=-csearch_path%3D\(schema)"), readerCount: 1)
            let report = try await LedgerVerifier.verify(copy)
            let transfers = try await copy.read { try $0.queryFirst("SELECT count(*) AS n FROM ledger_transfers")?.int("n") } ?? 0
            await copy.close()
            #expect(report.passed, "\(report)")
            #expect(transfers > 1, "the dump holds the transfers committed before it: \(transfers)")
        } catch {
            Issue.record(error)
        }
        await database.close()
        _ = try? await admin.withWriterConnection { try $0.executeScript("DROP DATABASE IF EXISTS \(restoredName) WITH (FORCE)") }
        await admin.close()
        await test.cleanup()
    }

    /// Runs a program on a thread of its own (waiting for a process blocks: never on the pool).
    func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let run = try SpawnedChild.run(path, arguments)
                    guard case .exited(let status) = run.termination else { return continuation.resume(returning: (-1, run.output)) }
                    continuation.resume(returning: (status, run.output))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
