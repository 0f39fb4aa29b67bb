import Foundation
import HubKernel
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import hubd

@Suite("hubd health routes", .timeLimit(.minutes(1)))
struct HealthRouteTests {
    @Test("healthz answers; readyz answers once the database does and 503 after it closes")
    func health() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await Database.open(.sqlite(path: folder.appendingPathComponent("hub.sqlite").path))
        let app = Application(router: buildRouter(database: database))
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"status\":\"ok\""))
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
            await database.close()
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }
}
