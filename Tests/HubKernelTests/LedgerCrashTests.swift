import Foundation
import HubTestSupport
import Logging
import Testing

@testable import HubKernel

#if canImport(Glibc)
    import Glibc
#endif

/// Kills a process that is writing transfers with SIGKILL, twice, and checks after each restart
/// that the ledger verifies and that every transfer it acknowledged is there exactly once.
@Suite("Ledger crash recovery", .timeLimit(.minutes(3)))
struct LedgerCrashTests {
    /// The crash writer is built beside the test bundle (the test target depends on it).
    static var writerPath: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("LedgerCrashWriter").path
    }

    @Test("SIGKILL mid-stream loses no acknowledged transfer", arguments: TestBackend.enabled)
    func killAndRestart(backend: TestBackend) async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.writerPath), "missing \(Self.writerPath)")
        let test = try await TestDatabase.make(backend)
        do {
            try await crashTwice(test)
        } catch {
            await test.cleanup()
            throw error
        }
        await test.cleanup()
    }

    @Test("SIGKILL once SQLite's log asks the checkpointer to copy it into the database file loses no acknowledged transfer")
    func killDuringCheckpoints() async throws {
        let test = try await TestDatabase.make(.sqlite)
        guard case .sqlite(let path) = test.url else { return }
        // Killed once the log has reached the checkpoint threshold: the commit that reached it
        // asked the checkpointer to copy, which is then likely at it. Any checkpointing lets the
        // log reach it first, so the kill always comes.
        let logBytes = SQLiteCheckpointer.backgroundFrames * (4_096 + 24)
        do {
            try await crashTwice(test) { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0) >= logBytes }
        } catch {
            await test.cleanup()
            throw error
        }
        await test.cleanup()
    }

    func crashTwice(_ test: TestDatabase, killWhen: @escaping @Sendable () -> Bool = { true }) async throws {
        var acknowledged: [TransferID] = []
        var unitIDs: [TransferID] = []
        for round in 1...2 {
            let (acks, units) = try await runAndKillReporting(url: test.url, afterAcks: 400, killWhen: killWhen)
            unitIDs += units
            #expect(acks.count >= 400, "round \(round)")
            acknowledged += acks

            let database = try await Database.open(test.url)
            let report = try await LedgerVerifier.verify(database)
            #expect(report.passed, "round \(round): \(report)")
            let keys = acknowledged
            let found = try await database.read { connection in
                try connection.selectIn("SELECT id FROM ledger_transfers WHERE id", keys: keys).count
            }
            #expect(found == acknowledged.count, "round \(round): \(acknowledged.count) acknowledged, \(found) stored")
            // Every acknowledged unit is whole: its row, its transfer (above) and its event, once.
            #expect(!unitIDs.isEmpty, "round \(round): no unit was acknowledged")
            let (notes, events) = try await database.read { [unitIDs] connection in
                (
                    try connection.selectIn("SELECT transfer_id FROM crash_notes WHERE transfer_id", keys: unitIDs).count,
                    try connection.selectIn(
                        "SELECT subject FROM hub_events WHERE type = 'crash.unit.done' AND subject",
                        keys: unitIDs.map(\.description)
                    ).count
                )
            }
            #expect(notes == unitIDs.count, "round \(round): \(unitIDs.count) units acknowledged, \(notes) rows stored")
            #expect(events == unitIDs.count, "round \(round): \(unitIDs.count) units acknowledged, \(events) events stored")
            await database.close()
        }
    }

    @Test("two writer processes on one database: migrations, set-up and transfers race safely", arguments: TestBackend.enabled)
    func twoProcesses(backend: TestBackend) async throws {
        let test = try await TestDatabase.make(backend)
        do {
            // Both start from an empty database, so they also race on migrations and set-up.
            async let first = runAndKill(url: test.url, afterAcks: 300)
            async let second = runAndKill(url: test.url, afterAcks: 300)
            let acknowledged = try await first + second
            #expect(Set(acknowledged).count == acknowledged.count)
            let database = try await Database.open(test.url)
            let report = try await LedgerVerifier.verify(database)
            #expect(report.passed, "\(report)")
            let keys = acknowledged
            let found = try await database.read { connection in
                try connection.selectIn("SELECT id FROM ledger_transfers WHERE id", keys: keys).count
            }
            #expect(found == acknowledged.count)
            await database.close()
        } catch {
            await test.cleanup()
            throw error
        }
        await test.cleanup()
    }

    /// Starts the writer, collects `ACK` lines until `afterAcks`, then kills it with SIGKILL while
    /// it is still writing, and returns every id it acknowledged before dying.
    func runAndKill(url: DatabaseURL, afterAcks: Int) async throws -> [TransferID] {
        try await runAndKillReporting(url: url, afterAcks: afterAcks).all
    }

    /// As above, with the ids acknowledged as units of work apart too; the kill also waits for
    /// `killWhen`.
    func runAndKillReporting(
        url: DatabaseURL,
        afterAcks: Int,
        killWhen: @escaping @Sendable () -> Bool = { true }
    ) async throws -> (all: [TransferID], units: [TransferID]) {
        let child = try SpawnedChild.start(Self.writerPath, [urlText(url)])
        let handle = child.output
        let pid = child.pid
        let (ids, units): ([TransferID], [TransferID]) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = [UInt8]()
                var ids: [TransferID] = []
                var units: [TransferID] = []
                var killed = false
                while true {
                    let chunk = handle.readChunkRetryingInterrupts()
                    if chunk.isEmpty { break }
                    buffer.append(contentsOf: chunk)
                    while let newline = buffer.firstIndex(of: 10) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeSubrange(...newline)
                        if line.hasPrefix("ACK "), let id = TransferID(String(line.dropFirst(4))) { ids.append(id) }
                        if line.hasPrefix("UNIT "), let id = TransferID(String(line.dropFirst(5))) {
                            ids.append(id)
                            units.append(id)
                        }
                    }
                    if !killed && ids.count >= afterAcks && killWhen() {
                        kill(pid, SIGKILL)
                        killed = true
                    }
                }
                continuation.resume(returning: (ids, units))
            }
        }
        #expect(child.waitUntilExit(), "the writer should have been killed, not exited")
        return (ids, units)
    }

    func urlText(_ url: DatabaseURL) -> String {
        switch url {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let uri): uri
        }
    }
}
