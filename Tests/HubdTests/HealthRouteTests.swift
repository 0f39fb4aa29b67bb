import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("hubd operational routes", .timeLimit(.minutes(3)))
struct HealthRouteTests {
    @Test("healthz answers; readyz answers once the database does and 503 after it closes")
    func health() async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("\"status\":\"ok\""))
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("a secrets key file opened to others after start-up turns readiness down, naming the fix")
    func secretsKeyFileOpened() async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: hub.secrets.keyFile)
            let unready = try await client.execute(uri: "/readyz", method: .get)
            #expect(unready.status == .serviceUnavailable)
            #expect(unready.text.contains("chmod 600"), "\(unready.text)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: hub.secrets.keyFile)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
        }
    }

    @Test("metrics count requests by route template and status; openapi.json is served")
    func metricsAndOpenAPI() async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            try await client.execute(uri: "/v1/assets", method: .get, headers: bearer("u1")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/ledger/accounts/\(UUID())", method: .get, headers: bearer("u1")) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"hub_http_requests_total{route="/v1/assets",method="GET",status="200"} 1"#))
                #expect(response.text.contains(#"route="/v1/ledger/accounts/{id}",method="GET",status="404""#))
            }
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                let document = try response.json()
                #expect(document["openapi"] as? String == "3.1.0")
            }
        }
    }
}
