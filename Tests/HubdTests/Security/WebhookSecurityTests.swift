import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubBLESessions

/// Issue #12, webhooks: the hub must not be turned into a client of its own network.
@Suite("security: webhooks", .timeLimit(.minutes(4)))
struct WebhookSecurityTests {
    static let admin = bearer("admin-1", "admin")

    @Test("#9 webhook URLs to loopback, private, link-local and metadata addresses are refused by default", arguments: TestBackend.enabled)
    func ssrfRefused(backend: TestBackend) async throws {
        try await withTestHub(on: backend, webhooks: WebhookConfiguration()) { hub, client in
            let inside = [
                "http://169.254.169.254/latest/meta-data", "http://127.0.0.1:5432/", "http://localhost:8080/hook", "http://[::1]/hook",
                "http://[::ffff:169.254.169.254]/", "http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://10.0.0.5/hook",
                "http://192.168.1.1/", "http://172.16.0.1/", "http://100.64.0.1/", "http://[fd00::1]/", "http://[fe80::1]/", "http://0.0.0.0/",
            ]
            for url in inside {
                let response = try await client.execute(
                    uri: "/v1/webhooks",
                    method: .post,
                    headers: Self.admin + jsonHeaders,
                    body: jsonBody(["url": url])
                )
                #expect(response.status == .unprocessableContent, "\(url): \(response.text)")
                #expect(problemCode(response) == "address_refused", "\(url)")
                #expect(response.object["field"] as? String == "url")
            }
            // Changing an existing endpoint's URL is checked the same way.
            let outside = try await client.execute(
                uri: "/v1/webhooks",
                method: .post,
                headers: Self.admin + jsonHeaders,
                body: jsonBody(["url": "https://hooks.example.com/hub"])
            )
            #expect(outside.status == .created, "\(outside.text)")
            let id = try #require(outside.object["id"] as? String)
            let moved = try await client.execute(
                uri: "/v1/webhooks/\(id)",
                method: .patch,
                headers: Self.admin + jsonHeaders,
                body: jsonBody(["url": "http://169.254.169.254/latest/meta-data"])
            )
            #expect(moved.status == .unprocessableContent)
            let endpoints = try await client.execute(uri: "/v1/webhooks", method: .get, headers: Self.admin)
            #expect((try endpoints.json()["data"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("#9 an operator's allow-list lets named private receivers through", arguments: TestBackend.enabled)
    func allowList(backend: TestBackend) async throws {
        var configuration = WebhookConfiguration()
        configuration.addressPolicy = WebhookAddressPolicy(allowedNetworks: ["10.1.0.0/16"])
        try await withTestHub(on: backend, webhooks: configuration) { hub, client in
            for (url, status) in [("http://10.1.2.3/hook", HTTPResponse.Status.created), ("http://10.2.0.1/hook", .unprocessableContent)] {
                let response = try await client.execute(
                    uri: "/v1/webhooks",
                    method: .post,
                    headers: Self.admin + jsonHeaders,
                    body: jsonBody(["url": url])
                )
                #expect(response.status == status, "\(url): \(response.text)")
            }
        }
        let parsed = try HubConfiguration.load(environment: ["HUB_WEBHOOK_ALLOW_PRIVATE": "10.1.0.0/16, fd00::/8"])
        #expect(parsed.webhooks.addressPolicy.allowedNetworks == ["10.1.0.0/16", "fd00::/8"])
        #expect(throws: ConfigurationError.self) { try HubConfiguration.load(environment: ["HUB_WEBHOOK_ALLOW_PRIVATE": "10.0.0.0/33"]) }
    }
}

/// Issue #12 item 17's second half: the resolve limit does what its documentation says.
@Suite("security: BLE resolve rate limit", .timeLimit(.minutes(3)))
struct ResolveRateLimitTests {
    @Test("#17 resolve allows a burst of a quarter of resolves_per_minute (at least 10), then answers 429 with Retry-After")
    func documentedLimit() async throws {
        // One a minute: the burst is the floor of 10, and no token comes back within the test
        // however slow the machine (the check must not depend on timing).
        try await withBLEHub(on: .sqlite, config: #"{"default_asset": "EUR", "resolves_per_minute": 1, "eid_rotation_seconds": 0}"#) { _, api in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<11 { statuses.append(try await api.resolve(eid: "0011223344").status) }
            #expect(statuses.prefix(10).allSatisfy { $0 == .notFound }, "\(statuses)")
            #expect(statuses.last == .tooManyRequests)
            let limited = try await api.resolve(eid: "0011223344")
            #expect(limited.status == .tooManyRequests)
            let wait = Int(limited.headers[.retryAfter] ?? "") ?? 0
            #expect((1...60).contains(wait), "one token a minute: \(wait)")
        }
        // The rule as configured, for other rates.
        for (perMinute, burst) in [(120, 30.0), (60, 15.0), (8, 10.0)] {
            var configuration = BLESessionsConfiguration()
            configuration.resolvesPerMinute = perMinute
            #expect(configuration.resolveRule.burst == burst)
            #expect(configuration.resolveRule.refillPerSecond == Double(perMinute) / 60)
        }
    }
}
