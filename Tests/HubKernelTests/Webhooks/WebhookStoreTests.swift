import Foundation
import HubKernel
import HubTestSupport
import Testing

@Suite("Webhook store")
struct WebhookStoreTests {
    @Test("create returns the secret once; reads, updates and deletes", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func endpointLifecycle(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let created = try await hub.store.create(
                NewWebhookEndpoint(
                    url: "https://example.com/hooks/hub",
                    description: "accounting",
                    eventTypes: ["ledger.transfer.*", "ledger.transfer.*", "identity.user.created"],
                    createdBy: "user-1"
                )
            )
            let secret = try #require(created.secret)
            #expect(secret.hasPrefix("whsec_"))
            #expect(created.eventTypes == ["ledger.transfer.*", "identity.user.created"], "repeats are dropped")
            #expect(created.enabled && created.createdBy == "user-1")

            var stored = try await hub.store.get(created.id)
            #expect(stored.secret == nil)
            var expected = created
            expected.secret = nil
            #expect(stored == expected)
            #expect(try await hub.store.list() == [expected])

            let updated = try await hub.store.update(
                created.id,
                WebhookEndpointUpdate(url: "https://example.com/v2", description: "", eventTypes: [], enabled: false)
            )
            #expect(updated.url == "https://example.com/v2" && updated.description == "" && updated.eventTypes == [] && !updated.enabled)
            #expect(updated.updatedAt >= created.updatedAt)
            stored = try await hub.store.get(created.id)
            #expect(stored == updated)
            // An update that changes nothing leaves the record alone.
            #expect(try await hub.store.update(created.id, WebhookEndpointUpdate()) == updated)

            let rotated = try await hub.store.rotateSecret(created.id)
            let newSecret = try #require(rotated.secret)
            #expect(newSecret != secret && newSecret.hasPrefix("whsec_"))

            try await hub.store.delete(created.id)
            #expect(try await hub.store.list().isEmpty)
            let missing = WebhookError(.notFound, "", field: "endpoint_id")
            await #expect(throws: missing) { try await hub.store.get(created.id) }
            await #expect(throws: missing) { try await hub.store.delete(created.id) }
            await #expect(throws: missing) { try await hub.store.update(created.id, WebhookEndpointUpdate(enabled: true)) }
            await #expect(throws: missing) { try await hub.store.rotateSecret(created.id) }
            await #expect(throws: missing) { try await hub.store.status(created.id) }
            await #expect(throws: missing) { try await hub.store.deliveries(endpointID: created.id) }
            await #expect(throws: missing) { try await hub.store.redeliver(endpointID: created.id, eventSequence: 1) }
        }
    }

    @Test("new endpoints start at the end of the log, or where asked", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func startingPosition(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let last = try await hub.append(["t.a", "t.b", "t.c"], nudge: false)
            let fresh = try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/a", enabled: false))
            #expect(try await hub.store.status(fresh.id).cursor == last)
            let replay = try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/b", enabled: false, startAfterSequence: 0))
            let status = try await hub.store.status(replay.id)
            #expect(status.cursor == 0 && status.lastEventSequence == last && status.lag == last)
            let middle = try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/c", enabled: false, startAfterSequence: 2))
            #expect(try await hub.store.status(middle.id).lag == 1)
        }
    }

    @Test("validation errors name the field and change nothing", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func validationChangesNothing(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            try await hub.append(["t.a"], nudge: false)
            let badURLs = [
                "", "not a url", "example.com/hook", "ftp://example.com/hook", "file:///etc/passwd", "http://", "https://user:pw@example.com/",
                "https://example.com/a#frag", "https://exa mple.com/", "https://example.com/\n", "javascript:alert(1)",
                "https://example.com/" + String(repeating: "a", count: 2100),
            ]
            for url in badURLs {
                await #expect(throws: WebhookError(.invalidURL, "", field: "url"), "\(url.prefix(40))") {
                    try await hub.store.create(NewWebhookEndpoint(url: url))
                }
            }
            let badFilters = [
                "", "*", ".", "ledger.", ".ledger", "ledger..transfer", "ledger.*.posted", "ledger transfer", "ledger.trans*", "ledger/x",
            ]
            for filter in badFilters {
                await #expect(throws: WebhookError(.invalidFilter, "", field: "event_types"), "\(filter)") {
                    try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/", eventTypes: ["ok.type", filter]))
                }
            }
            await #expect(throws: WebhookError(.invalidFilter, "", field: "event_types")) {
                try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/", eventTypes: (0...100).map { "t.e\($0)" }))
            }
            await #expect(throws: WebhookError(.invalidField, "", field: "description")) {
                try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/", description: String(repeating: "x", count: 1025)))
            }
            for start: Int64 in [-1, 2] {
                await #expect(throws: WebhookError(.invalidField, "", field: "start_after_sequence"), "\(start)") {
                    try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/", startAfterSequence: start))
                }
            }
            await #expect(throws: WebhookError(.invalidField, "", field: "created_by")) {
                try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/", createdBy: ""))
            }
            #expect(try await hub.store.list().isEmpty)

            let endpoint = try await hub.store.create(NewWebhookEndpoint(url: "https://example.com/ok", eventTypes: ["t.*"]))
            let before = try await hub.store.get(endpoint.id)
            await #expect(throws: WebhookError(.invalidURL, "", field: "url")) {
                try await hub.store.update(endpoint.id, WebhookEndpointUpdate(url: "gopher://x", description: "changed", enabled: false))
            }
            await #expect(throws: WebhookError(.invalidFilter, "", field: "event_types")) {
                try await hub.store.update(endpoint.id, WebhookEndpointUpdate(description: "changed", eventTypes: ["bad..type"]))
            }
            #expect(try await hub.store.get(endpoint.id) == before)
            #expect(try await hub.store.list() == [before])

            let unknown = WebhookEndpointID.random()
            await #expect(throws: WebhookError(.notFound, "", field: "endpoint_id")) {
                try await hub.store.update(unknown, WebhookEndpointUpdate(description: "x"))
            }
            await #expect(throws: WebhookError(.invalidField, "", field: "limit")) {
                try await hub.store.deliveries(endpointID: endpoint.id, limit: 0)
            }
            for cursor in ["", "abc", "-1", "0", "01"] {
                await #expect(throws: WebhookError(.invalidCursor, "", field: "cursor"), "\(cursor)") {
                    try await hub.store.deliveries(endpointID: endpoint.id, cursor: cursor)
                }
            }
        }
    }

    @Test("manual redelivery records a manual attempt and leaves the cursor alone", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func manualRedelivery(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            let last = try await hub.append(["t.a", "t.b"])
            try await hub.caughtUp(endpoint)

            let delivery = try await hub.store.redeliver(endpointID: endpoint.id, eventSequence: 1)
            #expect(delivery.manual && delivery.outcome == .succeeded && delivery.attempt == 2 && delivery.eventSequence == 1)
            #expect(delivery.responseStatus == 200 && delivery.responseBody == "ok")
            let received = hub.receiver.received("a")
            #expect(received.map(\.sequence) == [1, 2, 1])
            #expect(received[2].webhookID == received[0].webhookID && received[2].signatureValid == true)

            let status = try await hub.store.status(endpoint.id)
            #expect(status.cursor == last && status.lastDelivery == delivery)
            let attempts = try await hub.store.deliveries(endpointID: endpoint.id, eventSequence: 1)
            #expect(attempts.deliveries.map(\.manual) == [true, false])

            // A failed manual attempt is recorded, not thrown, and does not count against the endpoint.
            hub.receiver.failNext(1)
            let failed = try await hub.store.redeliver(endpointID: endpoint.id, eventSequence: 2)
            #expect(failed.outcome == .failed && failed.manual && failed.responseStatus == 500)
            let after = try await hub.store.status(endpoint.id)
            #expect(after.consecutiveFailures == 0 && after.headAttempts == 0 && after.cursor == last)

            await #expect(throws: WebhookError(.notFound, "", field: "event_sequence")) {
                try await hub.store.redeliver(endpointID: endpoint.id, eventSequence: last + 1)
            }
            await #expect(throws: WebhookError(.notFound, "", field: "event_sequence")) {
                try await hub.store.redeliver(endpointID: endpoint.id, eventSequence: 0)
            }
        }
    }

    @Test("delivery pages run newest first and end with no cursor", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func deliveryPagination(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            let last = try await hub.append((1...7).map { "t.e\($0)" })
            try await hub.caughtUp(endpoint)

            var sequences: [Int64] = []
            var ids: [Int64] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await hub.store.deliveries(endpointID: endpoint.id, cursor: cursor, limit: 3)
                #expect(page.deliveries.count <= 3)
                sequences += page.deliveries.map(\.eventSequence)
                ids += page.deliveries.map(\.id)
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(pages == 3)
            #expect(sequences == Array((1...last).reversed()))
            #expect(ids == ids.sorted(by: >))
            let exact = try await hub.store.deliveries(endpointID: endpoint.id, limit: 7)
            #expect(exact.deliveries.count == 7 && exact.nextCursor == nil)
        }
    }

    @Test("deleting an endpoint deletes its delivery records", .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func deleteCascades(backend: TestBackend) async throws {
        try await withWebhooks(on: backend) { hub in
            let endpoint = try await hub.endpoint("a")
            try await hub.append(["t.a"])
            try await hub.caughtUp(endpoint)
            try await hub.store.delete(endpoint.id)
            let left = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM hub_webhook_deliveries")!.int("n") }
            #expect(left == 0)
        }
    }
}
