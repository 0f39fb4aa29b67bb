import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

struct SimulatedCrash: Error {}

@Suite("secrets key rotation", .timeLimit(.minutes(4)))
struct SecretsRotationTests {
    static let names = (0..<5).map { try! SecretName(namespace: "rotation-test", name: "s\($0)") }

    @Test("rotation re-seals every secret under a new key; the old key file no longer opens them", arguments: TestBackend.enabled)
    func rotate(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            for (index, name) in Self.names.enumerated() { try await vault.store([UInt8(index)], as: name) }
            let oldKey = try Data(contentsOf: URL(fileURLWithPath: vault.keyFile))
            let rotation = try await vault.rotate()
            #expect(rotation.previousKeyID != rotation.keyID)
            #expect(rotation.resealed == Self.names.count + 1)  // and the vault's check row
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.keyFile)) != oldKey)
            #expect(!FileManager.default.fileExists(atPath: vault.nextKeyFile))
            let ids = try await vault.database.read { try $0.query("SELECT DISTINCT kek_id FROM hub_vault_secrets").map { try $0.text("kek_id") } }
            #expect(ids == [rotation.keyID])
            // A restarted process with the new file opens everything.
            let restarted = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            try await restarted.prepare()
            for (index, name) in Self.names.enumerated() { #expect(try await restarted.secret(name) == [UInt8(index)]) }
            // The old key does not.
            try oldKey.write(to: URL(fileURLWithPath: vault.keyFile))
            let stale = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            await #expect(throws: SecretsError.self) { try await stale.prepare() }
        }
    }

    @Test("a crash between commit and rename leaves the new key usable: the next start finishes the rename", arguments: TestBackend.enabled)
    func crashAfterCommit(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            for (index, name) in Self.names.enumerated() { try await vault.store([UInt8(index)], as: name) }
            await #expect(throws: SimulatedCrash.self) { _ = try await vault.rotate(afterCommit: { throw SimulatedCrash() }) }
            #expect(FileManager.default.fileExists(atPath: vault.nextKeyFile))
            let restarted = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            try await restarted.prepare()
            #expect(!FileManager.default.fileExists(atPath: vault.nextKeyFile))
            for (index, name) in Self.names.enumerated() { #expect(try await restarted.secret(name) == [UInt8(index)]) }
        }
    }

    @Test("a row that does not open stops the rotation before its commit: nothing changes", arguments: TestBackend.enabled)
    func tamperedStopsRotation(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            for (index, name) in Self.names.enumerated() { try await vault.store([UInt8(index)], as: name) }
            try await vault.database.write { connection in
                try connection.execute("UPDATE hub_vault_secrets SET sealed = \([UInt8](repeating: 1, count: 41)) WHERE name = 's3'")
            }
            let rows = try await vaultRows(vault.database)
            let key = try Data(contentsOf: URL(fileURLWithPath: vault.keyFile))
            let error = await #expect(throws: SecretsError.self) { _ = try await vault.rotate() }
            #expect(error?.message.contains("rotation-test/s3") == true, "\(String(describing: error))")
            #expect(try await vaultRows(vault.database) == rows)
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.keyFile)) == key)
            #expect(try await vault.secret(Self.names[0]) == [0])
        }
    }

    @Test("a process that has the old key in memory follows a rotation made by another", arguments: TestBackend.enabled)
    func otherProcessFollows(backend: TestBackend) async throws {
        try await withVault(on: backend) { vault in
            let other = SecretsVault(database: vault.database, keyFile: vault.keyFile, logger: Logger(label: "test"))
            try await other.prepare()
            try await vault.store([1], as: Self.names[0])
            let rotation = try await vault.rotate()
            #expect(try await other.secret(Self.names[0]) == [1])
            // Its next write seals under the new key, not the retired one.
            try await other.store([2], as: Self.names[1])
            let id = try await vault.database.read { try $0.queryFirst("SELECT kek_id FROM hub_vault_secrets WHERE name = 's1'")!.text("kek_id") }
            #expect(id == rotation.keyID)
        }
    }
}

@Suite("secrets key rotation lock")
struct SecretsRotationLockTests {
    @Test("a rotation while another holds the key file is refused before it writes anything")
    func concurrentRotation() async throws {
        try await withVault(on: .sqlite) { vault in
            let held = try SecretsKeyFile.lockForRotation(vault.keyFile)
            let key = try Data(contentsOf: URL(fileURLWithPath: vault.keyFile))
            let rows = try await vaultRows(vault.database)
            let error = await #expect(throws: SecretsError.self) { _ = try await vault.rotate() }
            #expect(error?.message.contains("another rotation") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: vault.nextKeyFile))
            #expect(try await vaultRows(vault.database) == rows)
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.keyFile)) == key)
            close(held)
            _ = try await vault.rotate()
        }
    }
}
