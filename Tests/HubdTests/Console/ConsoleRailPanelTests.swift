import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Rail panels in the console: the navigation names every running rail with a panel and
/// `/admin/rails/<id>` renders the generic panel page (its JavaScript draws the panel from
/// `GET /v1/plugins`; see ``AdminPanelTests``).
@Suite("admin console rail panels", .timeLimit(.minutes(3)))
struct ConsoleRailPanelTests {
    @Test("the tip-jar example (AdminPanel(title:summary:links:)) gets a page and a navigation entry")
    func tipJarPanel() async throws {
        try await withTestHub(on: .sqlite, builtIn: [TipJarPlugin.self], plugins: [tipJarEntry()]) { _, client in
            try await client.execute(uri: "/admin/rails/tip-jar", method: .get) { response in
                #expect(response.status == .ok)
                let html = response.text
                #expect(html.contains("data-page=\"rail\" data-rail=\"tip-jar\""))
                #expect(html.contains("<a href=\"/admin/rails/tip-jar\" aria-current=\"page\">Tip jars</a>"), "\(html)")
                #expect(html.contains("<title>Tip jars · hubd admin</title>"))
            }
            try await client.execute(uri: "/admin/overview", method: .get) { response in
                #expect(response.text.contains("<a href=\"/admin/rails/tip-jar\">Tip jars</a>"))
            }
            try await client.execute(uri: "/admin/rails/ble-sessions", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/v1/plugins", method: .get, headers: bearer("admin-1", "admin")) { response in
                let plugins = try #require(try response.json()["data"] as? [[String: Any]])
                let panel = try #require(plugins.first?["admin_panel"] as? [String: Any])
                #expect(panel["title"] as? String == "Tip jars")
                #expect((panel["links"] as? [[String: Any]])?.first?["path"] as? String == "/jars")
                #expect((panel["lists"] as? [Any])?.isEmpty == true)
            }
        }
    }
}
