import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

#if canImport(Glibc)
    import Glibc
#endif

/// `hubd secrets rotate` as an operator runs it, killed where it hurts: every secret, the local
/// chain's validator key included, must open afterwards with whichever key file is left.
@Suite("hubd secrets", .timeLimit(.minutes(3)))
struct SecretsCommandTests {
    static let secretNames = (0..<20).map { try! SecretName(namespace: "cli-test", name: "s\($0)") }

    /// Runs `hubd` with exactly `environment` (nothing read from this process's live environment),
    /// optionally killing it with SIGKILL after `killAfter`. Blocking waits run off the cooperative pool.
    func hubd(_ arguments: [String], environment: [String: String], killAfter: Duration? = nil) async throws -> (killed: Bool, output: String) {
        let child = try SpawnedChild.start(CommandLineTests.hubdPath, arguments, environment: environment)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                if let killAfter {
                    usleep(UInt32(killAfter.components.attoseconds / 1_000_000_000_000 + killAfter.components.seconds * 1_000_000))
                    kill(child.pid, SIGKILL)
                }
                let output = child.output.readAllRetryingInterrupts()
                let killed = child.waitUntilExit()
                continuation.resume(returning: (killed, String(decoding: output, as: UTF8.self)))
            }
        }
    }

    @Test("a rotation killed between its commit and its rename, or at any moment, leaves every secret usable", arguments: TestBackend.enabled)
    func killDuringRotate(backend: TestBackend) async throws {
        let folder = testSecretsKeyFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pluginsPath = folder + "/plugins.json"
        try Data(#"{"plugins": [{"id": "localchain", "enabled": true, "config": {"key_file": "\#(folder)/localchain.key"}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: pluginsPath))
        let plugins = try PluginsFile.load(path: pluginsPath, required: true, builtInIDs: BuiltInPlugins.all.map { $0.id })
        let test = try await TestDatabase.make(backend)
        let database: Database
        do { database = try await Database.open(test.url) } catch {
            await test.cleanup()
            throw error
        }
        do {
            try await rotations(test: test, database: database, folder: folder, plugins: plugins, pluginsPath: pluginsPath)
        } catch {
            await database.close()
            await test.cleanup()
            throw error
        }
        await database.close()
        await test.cleanup()
    }

    func rotations(test: TestDatabase, database: Database, folder: String, plugins: PluginsFile, pluginsPath: String) async throws {
        let keyFile = folder + "/secrets.key"
        let url: String =
            switch test.url {
            case .sqlite(let path): "sqlite:\(path)"
            case .postgres(let uri): uri
            }
        let environment = ["PATH": "/usr/bin:/bin", "HUB_DATABASE_URL": url, "HUB_SECRETS_KEY_FILE": keyFile, "HUB_PLUGINS": pluginsPath]
        let chainID: UInt64 = 4_800
        let alice = TestKeys.address(TestKeys.alice)

        /// A hub on the files as they are now: every secret opens and the chain still seals.
        func expectUsable(_ round: String, grant: Int) async throws {
            try await withTestHub(database: database, builtIn: BuiltInPlugins.all, plugins: plugins.entries, secretsKeyFile: keyFile) { hub, client in
                for (index, name) in Self.secretNames.enumerated() {
                    #expect(try await hub.secrets.secret(name) == [UInt8(index)], "\(round): \(name)")
                }
                let api = LocalChainAPI(client: client, database: hub.database)
                #expect(try await api.grant(chainID, to: alice, amount: "1").status == .accepted, "\(round)")
                try await api.waitSealed(chainID)
                #expect(try await api.account(chainID, alice)?.balance == UInt128(grant), "\(round)")
            }
        }

        try await withTestHub(database: database, builtIn: BuiltInPlugins.all, plugins: plugins.entries, secretsKeyFile: keyFile) { hub, client in
            for (index, name) in Self.secretNames.enumerated() { try await hub.secrets.store([UInt8(index)], as: name) }
            let api = LocalChainAPI(client: client, database: hub.database)
            #expect(try await api.createChain(chainID).status == .created)
        }
        try await expectUsable("before", grant: 1)
        let original = try Data(contentsOf: URL(fileURLWithPath: keyFile))

        // Killed right after the commit: the database names the new key, only the next file has it.
        var crashing = environment
        crashing["HUB_TEST_CRASH_AFTER_COMMIT"] = "1"
        let crashed = try await hubd(["secrets", "rotate"], environment: crashing)
        #expect(crashed.killed, "\(crashed.output)")
        #expect(FileManager.default.fileExists(atPath: keyFile + ".next"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) == original)
        try await expectUsable("after a crash between commit and rename", grant: 2)
        #expect(!FileManager.default.fileExists(atPath: keyFile + ".next"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) != original)

        let clean = try await hubd(["secrets", "rotate"], environment: environment)
        #expect(!clean.killed && clean.output.contains("re-sealed"), "\(clean.output)")

        // Killed at moments spread over a run, which takes some 25 ms here (start-up, the
        // transaction, the rename): where each lands varies with the machine's load; the crash
        // above is the one placed exactly.
        for (round, delay) in [2, 6, 10, 14, 18, 22, 30].enumerated() {
            let run = try await hubd(["secrets", "rotate"], environment: environment, killAfter: .milliseconds(delay))
            try await expectUsable("kill after \(delay) ms (killed: \(run.killed))", grant: 3 + round)
        }
    }
}
