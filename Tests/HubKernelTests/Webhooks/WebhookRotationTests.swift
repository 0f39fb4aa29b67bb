import Foundation
import HubTestSupport
import Testing

@testable import HubKernel

@Suite("webhook secret rotation", .timeLimit(.minutes(3)))
struct WebhookRotationTests {
    /// Whether the last request to `name` verifies under `secret`, as a receiver checks it.
    static func verifies(_ hub: WebhookHarness, _ name: String, _ secret: String) throws -> Bool {
        let request = try #require(hub.receiver.received(name).last)
        do {
            try StandardWebhookSigner(secret: secret).verify(
                id: request.headers["webhook-id"] ?? "",
                timestamp: request.headers["webhook-timestamp"] ?? "",
                signatures: request.headers["webhook-signature"] ?? "",
                body: request.body,
                now: Int64(Date().timeIntervalSince1970)
            )
            return true
        } catch {
            return false
        }
    }

    @Test("#17 after a rotation both secrets sign for the overlap; a rotation without overlap stops the old one", arguments: TestBackend.enabled)
    func overlap(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            let first = try #require(endpoint.secret)
            let rotated = try await hub.store.rotateSecret(endpoint.id)
            let second = try #require(rotated.secret)
            #expect(rotated.previousSecretExpiresAt != nil)
            _ = try await hub.append(["t.one"])
            try await hub.caughtUp(endpoint)
            let header = try #require(hub.receiver.received("a").last?.headers["webhook-signature"])
            #expect(header.split(separator: " ").count == 2, "\(header)")
            #expect(try Self.verifies(hub, "a", first), "a receiver still on the old secret must keep working")
            #expect(try Self.verifies(hub, "a", second))

            let third = try #require(try await hub.store.rotateSecret(endpoint.id, overlap: .zero).secret)
            _ = try await hub.append(["t.two"])
            try await hub.caughtUp(endpoint)
            #expect(try Self.verifies(hub, "a", third))
            #expect(try !Self.verifies(hub, "a", second))
            #expect(try !Self.verifies(hub, "a", first))
            await #expect(throws: WebhookError(.invalidField, "", field: "overlap_seconds")) {
                try await hub.store.rotateSecret(endpoint.id, overlap: .seconds(8 * 24 * 3600))
            }
        }
    }
}
