import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The vault on a migrated database of its own, with a key file in a folder of its own.
func withVault(on backend: TestBackend, _ body: (SecretsVault) async throws -> Void) async throws {
    try await withDatabase(on: backend) { database in
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
        let vault = try await preparedTestVault(database)
        defer { try? FileManager.default.removeItem(atPath: (vault.keyFile as NSString).deletingLastPathComponent) }
        try await body(vault)
    }
}

/// The raw rows of the vault table, for "nothing changed" checks.
func vaultRows(_ database: Database) async throws -> [String] {
    try await database.read { connection in
        try connection.query("SELECT namespace, name, kek_id, sealed FROM hub_vault_secrets ORDER BY namespace, name").map { row in
            "\(try row.text("namespace"))/\(try row.text("name")) \(try row.text("kek_id")) \(try row.bytes("sealed"))"
        }
    }
}

@Suite("secrets vault", .timeLimit(.minutes(4)))
struct SecretsVaultTests {
    static let name = try! SecretName(namespace: "kernel-test", name: "api-token")

    @Test("a stored secret opens again, in this vault and in one started on the same files", arguments: TestBackend.enabled)
    func roundTrip(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            let value = Array("the value".utf8)
            try await vault.store(value, as: Self.name)
            #expect(try await vault.secret(Self.name) == value)
            // At rest it is sealed: the row does not contain the value.
            let row = try await vault.database.read { try $0.queryFirst("SELECT sealed, kek_id FROM hub_vault_secrets WHERE name = 'api-token'") }
            let sealed = try #require(try row?.bytes("sealed"))
            #expect(!Data(sealed).contains(Data(value)))
            #expect(try row?.text("kek_id") == (try vault.currentKeyID()))
            // A second process (a new vault over the same key file and database).
            let restarted = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            try await restarted.prepare()
            #expect(try await restarted.secret(Self.name) == value)
            #expect(try await restarted.secret(try SecretName(namespace: "kernel-test", name: "absent")) == nil)
        }
    }

    @Test("processes starting together on a new hub agree on one key file and one check row", arguments: TestBackend.enabled)
    func concurrentFirstStart(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let folder = testSecretsKeyFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // Each vault with a Database of its own: a writer connection each, as separate processes have.
            var databases = [database]
            for _ in 0..<3 { databases.append(try await Database.open(database.url, readerCount: 1)) }
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for each in databases {
                    group.addTask {
                        let vault = SecretsVault(database: each, keyFile: folder + "/secrets.key", logger: Logger(label: "test"))
                        try await vault.prepare()
                        return try vault.currentKeyID()
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            for extra in databases.dropFirst() { await extra.close() }
            #expect(ids.count == 1)
            #expect(try await vaultRows(database).count == 1)
        }
    }

    @Test("writes are idempotent; orCreate makes one value however often it is asked", arguments: TestBackend.enabled)
    func idempotentWrites(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            try await vault.store([1, 2, 3], as: Self.name)
            let before = try await vaultRows(vault.database)
            try await vault.store([1, 2, 3], as: Self.name)
            #expect(try await vaultRows(vault.database) == before, "storing the same value again rewrote the row")
            try await vault.store([4], as: Self.name)
            #expect(try await vault.secret(Self.name) == [4])
            let other = try SecretName(namespace: "kernel-test", name: "made")
            let made = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for index in 0..<4 { group.addTask { try await vault.secret(other, orCreate: { [UInt8(index)] }) } }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(made).count == 1)
        }
    }

    @Test("a changed or moved row is refused with a clear error, and nothing changes", arguments: TestBackend.enabled)
    func tamperedRow(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            try await vault.store(Array("first".utf8), as: Self.name)
            let moved = try SecretName(namespace: "kernel-test", name: "other")
            try await vault.store(Array("second".utf8), as: moved)
            // One flipped bit.
            try await vault.database.write { connection in
                let sealed = try connection.queryFirst("SELECT sealed FROM hub_vault_secrets WHERE name = 'api-token'")!.bytes("sealed")
                var changed = sealed
                changed[changed.count - 1] ^= 1
                try connection.execute("UPDATE hub_vault_secrets SET sealed = \(changed) WHERE name = 'api-token'")
            }
            let rows = try await vaultRows(vault.database)
            let error = await #expect(throws: SecretsError.self) { _ = try await vault.secret(Self.name) }
            #expect(error?.code == .tampered)
            #expect(error?.message.contains("kernel-test/api-token") == true, "\(String(describing: error))")
            // A write over it is refused too, and leaves the row as it was.
            await #expect(throws: SecretsError.self) { try await vault.store([9], as: Self.name) }
            #expect(try await vaultRows(vault.database) == rows)
            // A sealed value copied onto another name does not open there (bound to its name).
            try await vault.database.write { connection in
                let sealed = try connection.queryFirst("SELECT sealed FROM hub_vault_secrets WHERE name = 'other'")!.bytes("sealed")
                try connection.execute("UPDATE hub_vault_secrets SET sealed = \(sealed) WHERE name = 'api-token'")
            }
            await #expect(throws: SecretsError.self) { _ = try await vault.secret(Self.name) }
            #expect(try await vault.secret(moved) == Array("second".utf8))
        }
    }

    @Test("a rail reaches only its own namespace", arguments: TestBackend.enabled)
    func railIsolation(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            let tips = vault.railSecrets(for: "tip-jar")
            let chain = vault.railSecrets(for: "localchain")
            try await tips.store(Array("tips".utf8), as: "api-key")
            try await chain.store(Array("chain".utf8), as: "api-key")
            #expect(try await tips.secret("api-key") == Array("tips".utf8))
            #expect(try await chain.secret("api-key") == Array("chain".utf8))
            #expect(tips.namespace == "rail:tip-jar")
            // A name cannot climb out of the namespace: it is bound into the seal with it.
            #expect(try await tips.secret("../localchain/api-key") == nil)
            // The kernel's own secrets are out of reach (the JWT keys live in `identity`).
            try await vault.store([7], as: try SecretName(namespace: "identity", name: "jwt-keys"))
            #expect(try await tips.secret("jwt-keys") == nil)
            #expect(try await tips.remove("api-key"))
            #expect(try await chain.secret("api-key") == Array("chain".utf8))
        }
    }

    @Test("a data key declared before start is loaded at start and answers synchronously", arguments: TestBackend.enabled)
    func dataKeys(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            let rail = vault.railSecrets(for: "tip-jar")
            #expect(throws: SecretsError.self) { _ = try rail.dataKey("sealing") }
            try rail.declareDataKey("sealing")
            try await vault.prepare()
            let key = try rail.dataKey("sealing")
            let restarted = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            let again = restarted.railSecrets(for: "tip-jar")
            try again.declareDataKey("sealing")
            try await restarted.prepare()
            #expect(try again.dataKey("sealing").keyBytes == key.keyBytes)
        }
    }
}
