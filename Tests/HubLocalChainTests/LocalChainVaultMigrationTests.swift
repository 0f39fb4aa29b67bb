import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// The local chain's key file of before the secrets vault becomes the vault's key: a chain made
/// then keeps sealing, and its validator key opens, after the upgrade and after a key rotation.
@Suite("local chain key migration into the secrets vault", .timeLimit(.minutes(3)))
struct LocalChainVaultMigrationTests {
    @Test("a chain made before the vault still seals after the upgrade and after `secrets rotate`", arguments: TestBackend.enabled)
    func migrate(backend: TestBackend) async throws {
        let legacyKeyFile = localChainKeyFile()
        let folder = (legacyKeyFile as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let secretsKeyFile = folder + "/secrets.key"
        let chainID: UInt64 = 4_700
        let alice = TestKeys.address(TestKeys.alice)
        let plugins = [localChainEntry(keyFile: legacyKeyFile)]
        try await withDatabase(on: backend) { database in
            // A chain with a block or two, then the database and files put back as a hub of before
            // the vault left them: the chain's key sealed under the rail's own key file, no vault
            // rows, no secrets key file.
            let sealedBefore = try await withTestHub(
                database: database,
                builtIn: [LocalChainPlugin.self],
                plugins: plugins,
                secretsKeyFile: secretsKeyFile
            ) { hub, client in
                let api = LocalChainAPI(client: client, database: hub.database)
                #expect(try await api.createChain(chainID).status == .created)
                #expect(try await api.grant(chainID, to: alice, amount: "5").status == .accepted)
                try await api.waitSealed(chainID)
                let dataKey = try #require(try await hub.secrets.secret(SecretName(namespace: "rail:localchain", name: "validator-keys")))
                #expect(try SecretsKeyFile.create(legacyKeyFile, key: try #require(KeyEncryptionKey(keyBytes: dataKey))))
                return try #require(try await hub.database.read { try LocalChainStore.chain(chainID, on: $0) }).sealedKey
            }
            try await database.write { try $0.execute("DELETE FROM hub_vault_secrets") }
            try FileManager.default.removeItem(atPath: secretsKeyFile)

            // The upgrade: the first start with the vault adopts the key file.
            try await withTestHub(database: database, builtIn: [LocalChainPlugin.self], plugins: plugins, secretsKeyFile: secretsKeyFile) {
                hub,
                client in
                #expect(try Data(contentsOf: URL(fileURLWithPath: secretsKeyFile)) == Data(contentsOf: URL(fileURLWithPath: legacyKeyFile)))
                let api = LocalChainAPI(client: client, database: hub.database)
                #expect(try await api.grant(chainID, to: alice, amount: "7").status == .accepted)
                try await api.waitSealed(chainID)
                #expect(try await api.account(chainID, alice)?.balance == 12)
                let chain = try #require(try await hub.database.read { try LocalChainStore.chain(chainID, on: $0) })
                #expect(chain.sealedKey == sealedBefore)
                _ = try await hub.secrets.rotate()
            }

            // After a rotation of the vault's key the chain's key still opens and blocks still seal.
            try await withTestHub(database: database, builtIn: [LocalChainPlugin.self], plugins: plugins, secretsKeyFile: secretsKeyFile) {
                hub,
                client in
                #expect(try Data(contentsOf: URL(fileURLWithPath: secretsKeyFile)) != Data(contentsOf: URL(fileURLWithPath: legacyKeyFile)))
                let api = LocalChainAPI(client: client, database: hub.database)
                #expect(try await api.grant(chainID, to: alice, amount: "1").status == .accepted)
                try await api.waitSealed(chainID)
                #expect(try await api.account(chainID, alice)?.balance == 13)
                try await hub.ledger.expectVerified()
            }
        }
    }
}
