import Foundation
import HubKernel
import HubTestSupport
import Testing

/// Webhook secrets are sealed in the vault; those stored in plaintext before it move in at start.
@Suite("webhook secrets at rest", .timeLimit(.minutes(3)))
struct WebhookSecretsVaultTests {
    func columns(_ hub: WebhookHarness, _ id: WebhookEndpointID) async throws -> (secret: String, previous: String?) {
        try await hub.database.read { connection in
            let row = try connection.queryFirst("SELECT secret, previous_secret FROM hub_webhook_endpoints WHERE id = \(id)")!
            return (try row.text("secret"), try row.optionalText("previous_secret"))
        }
    }

    func vaulted(_ hub: WebhookHarness, _ id: WebhookEndpointID, _ which: String) async throws -> String? {
        try await hub.secrets.secret(try SecretName(namespace: "webhooks", name: "\(id)/\(which)")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Puts an endpoint back as a hub of before the vault stored it: plaintext columns, no vault rows.
    func makePlaintext(_ hub: WebhookHarness, _ id: WebhookEndpointID, secret: String, previous: String?) async throws {
        try await hub.database.write { connection in
            try connection.execute("DELETE FROM hub_vault_secrets WHERE namespace = 'webhooks' AND name LIKE \(id.description + "/%")")
            try connection.execute("UPDATE hub_webhook_endpoints SET secret = \(secret), previous_secret = \(previous) WHERE id = \(id)")
        }
    }

    @Test("a new or rotated secret is sealed in the vault, never in the endpoint's row", arguments: TestBackend.enabled)
    func sealed(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            #expect(try await columns(hub, endpoint.id) == ("", nil))
            #expect(try await vaulted(hub, endpoint.id, "current") == endpoint.secret)
            let rotated = try await hub.store.rotateSecret(endpoint.id)
            #expect(try await columns(hub, endpoint.id) == ("", nil))
            #expect(try await vaulted(hub, endpoint.id, "current") == rotated.secret)
            #expect(try await vaulted(hub, endpoint.id, "previous") == endpoint.secret)
            let stored = try await hub.database.read { try $0.query("SELECT sealed FROM hub_vault_secrets").map { try $0.bytes("sealed") } }
            for sealed in stored { #expect(!Data(sealed).contains(Data(try #require(endpoint.secret).utf8))) }
            try await hub.store.delete(endpoint.id)
            #expect(try await vaulted(hub, endpoint.id, "current") == nil)
            #expect(try await vaulted(hub, endpoint.id, "previous") == nil)
        }
    }

    @Test("plaintext secrets of before the vault move into it at start, and deliveries keep their signatures", arguments: TestBackend.enabled)
    func migration(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let a = try await hub.endpoint("a")
            let b = try await hub.endpoint("b")
            let secretA = try #require(a.secret)
            try await makePlaintext(hub, a.id, secret: secretA, previous: nil)
            let rotatedB = try await hub.store.rotateSecret(b.id)
            let (secretB, oldB) = (try #require(rotatedB.secret), try #require(b.secret))
            try await makePlaintext(hub, b.id, secret: secretB, previous: oldB)
            hub.receiver.setSecret(secretB, for: "b")

            // Before the move the plaintext rows still sign (an older hubd may have written them).
            _ = try await hub.append(["t.before"])
            try await hub.caughtUp(a)
            try await hub.caughtUp(b)

            #expect(try await hub.store.moveSecretsIntoVault() == 2)
            #expect(try await hub.store.moveSecretsIntoVault() == 0)
            #expect(try await columns(hub, a.id) == ("", nil))
            #expect(try await columns(hub, b.id) == ("", nil))
            #expect(try await vaulted(hub, a.id, "current") == secretA)
            #expect(try await vaulted(hub, b.id, "current") == secretB)
            #expect(try await vaulted(hub, b.id, "previous") == oldB)

            _ = try await hub.append(["t.after"])
            try await hub.caughtUp(a)
            try await hub.caughtUp(b)
            for name in ["a", "b"] {
                let received = hub.receiver.received(name)
                #expect(received.count == 2 && received.allSatisfy { $0.signatureValid == true }, "\(name): \(received.map(\.signatureValid))")
            }
            #expect(try WebhookRotationTests.verifies(hub, "b", oldB), "the previous secret keeps signing through its overlap")
        }
    }

    @Test("the move is one transaction: one endpoint that cannot move leaves every endpoint as it was", arguments: TestBackend.enabled)
    func allOrNothing(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let a = try await hub.endpoint("a")
            let b = try await hub.endpoint("b")
            try await makePlaintext(hub, a.id, secret: try #require(a.secret), previous: nil)
            try await makePlaintext(hub, b.id, secret: try #require(b.secret), previous: nil)
            // A damaged vault row where b's secret goes: the write refuses to replace what it cannot open.
            try await hub.database.write { connection in
                let kek = try connection.queryFirst("SELECT kek_id FROM hub_vault_secrets LIMIT 1")!.text("kek_id")
                try connection.execute(
                    """
                    INSERT INTO hub_vault_secrets (namespace, name, kek_id, sealed, updated_at) \
                    VALUES ('webhooks', \(b.id.description + "/current"), \(kek), \([UInt8](repeating: 7, count: 60)), 0)
                    """
                )
            }
            await #expect(throws: SecretsError.self) { try await hub.store.moveSecretsIntoVault() }
            #expect(try await columns(hub, a.id) == (try #require(a.secret), nil))
            #expect(try await columns(hub, b.id) == (try #require(b.secret), nil))
            #expect(try await vaulted(hub, a.id, "current") == nil)
        }
    }
}
