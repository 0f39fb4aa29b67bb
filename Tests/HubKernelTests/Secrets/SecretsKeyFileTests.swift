import Foundation
import HubKernel
import HubTestSupport
import Logging
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("secrets key file", .timeLimit(.minutes(4)))
struct SecretsKeyFileTests {
    func mode(_ path: String) -> Int {
        var info = stat()
        stat(path, &info)
        return Int(info.st_mode) & 0o777
    }

    @Test("created at first start with mode 0600; a file open to others or malformed is refused, naming it", arguments: TestBackend.enabled)
    func permissions(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let folder = testSecretsKeyFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + "/secrets.key"
            let vault = SecretsVault(database: database, keyFile: path, logger: Logger(label: "test"))
            try await vault.prepare()
            #expect(mode(path) == 0o600)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 32)

            chmod(path, 0o640)
            let restarted = SecretsVault(database: database, keyFile: path, logger: Logger(label: "test"))
            let open = await #expect(throws: SecretsError.self) { try await restarted.prepare() }
            #expect(open?.code == .keyFile)
            #expect(open?.message.contains(path) == true && open?.message.contains("chmod 600") == true, "\(String(describing: open))")
            // Refused is refused: nothing was used, so the vault answers "not ready".
            await #expect(throws: SecretsError.self) { _ = try await restarted.secret(try SecretName(namespace: "a", name: "b")) }

            chmod(path, 0o600)
            let key = try Data(contentsOf: URL(fileURLWithPath: path))
            try (key + Data([0])).write(to: URL(fileURLWithPath: path))
            let malformed = await #expect(throws: SecretsError.self) { try await restarted.prepare() }
            #expect(malformed?.message.contains("32 bytes") == true, "\(String(describing: malformed))")
            try key.write(to: URL(fileURLWithPath: path))
            try await restarted.prepare()
        }
    }

    @Test("a missing or different key file is refused on a vault in use; no new key is made", arguments: TestBackend.enabled)
    func wrongKey(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            try await vault.store([1], as: try SecretName(namespace: "a", name: "b"))
            let folder = testSecretsKeyFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let missing = SecretsVault(database: vault.database, keyFile: folder + "/secrets.key", logger: Logger(label: "test"))
            let absent = await #expect(throws: SecretsError.self) { try await missing.prepare() }
            #expect(absent?.code == .keyFile && absent?.message.contains("does not exist") == true, "\(String(describing: absent))")
            #expect(!FileManager.default.fileExists(atPath: folder + "/secrets.key"))

            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try SecretsKeyFile.create(folder + "/secrets.key", key: .random())
            let other = SecretsVault(database: vault.database, keyFile: folder + "/secrets.key", logger: Logger(label: "test"))
            let wrong = await #expect(throws: SecretsError.self) { try await other.prepare() }
            #expect(wrong?.code == .wrongKey, "\(String(describing: wrong))")
        }
    }

    @Test("a process reading the key file while another creates it sees no file or the whole key, never part of it")
    func createIsAtomic() async throws {
        let folder = testSecretsKeyFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // File I/O on threads of their own, off the cooperative pool.
        let failures = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            Thread.detachNewThread {
                let failures = Failures()
                for round in 0..<300 {
                    let path = folder + "/secrets-\(round).key"
                    let key = KeyEncryptionKey.random()
                    let reader = Thread {
                        while true {
                            do {
                                if let seen = try SecretsKeyFile.load(path) {
                                    if seen.keyBytes != key.keyBytes { failures.list.withLock { $0.append("round \(round): another key") } }
                                    return
                                }
                            } catch {
                                failures.list.withLock { $0.append("round \(round): \(error)") }
                                return
                            }
                        }
                    }
                    reader.start()
                    _ = try? SecretsKeyFile.create(path, key: key)
                    while !reader.isFinished { usleep(50) }
                }
                done.resume(returning: failures.list.withLock { $0 })
            }
        }
        let failed = failures.count
        #expect(failed == 0, "\(failures.prefix(3))")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".key") }
        #expect(left.isEmpty, "staging files left behind: \(left)")
    }

    @Test("a legacy key file becomes the key-encryption key of a new vault, and the data key it declared")
    func legacyAdoption() async throws {
        try await withDatabase(on: .sqlite) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let folder = testSecretsKeyFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let legacy = KeyEncryptionKey.random()
            try SecretsKeyFile.create(folder + "/localchain.key", key: legacy)
            let vault = SecretsVault(database: database, keyFile: folder + "/secrets.key", logger: Logger(label: "test"))
            let rail = vault.railSecrets(for: "localchain")
            try rail.declareDataKey("validator-keys", adoptingLegacyFile: folder + "/localchain.key")
            try await vault.prepare()
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/secrets.key")) == Data(legacy.keyBytes))
            #expect(try rail.dataKey("validator-keys").keyBytes == legacy.keyBytes)
            #expect(try vault.currentKeyID() == SecretsKeyFile.keyID(legacy))
        }
    }
}

/// What reader threads saw go wrong, gathered across threads.
private final class Failures: Sendable {
    let list = Mutex<[String]>([])
}
