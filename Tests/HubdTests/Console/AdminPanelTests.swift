import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The declarative ``AdminPanel`` (lists, columns, detail views) as `GET /v1/plugins` carries it to
/// the console, and panels from before lists existed.
@Suite("rail admin panels", .timeLimit(.minutes(3)))
struct AdminPanelTests {
    @Test("a panel with lists, columns and a detail view reaches the console as the API documents it")
    func declarativePanel() async throws {
        try await withTestHub(on: .sqlite, builtIn: [PanelDemoRail.self], plugins: [PanelDemoRail.entry]) { _, client in
            try await client.execute(uri: "/v1/plugins", method: .get, headers: bearer("admin-1", "admin")) { response in
                let plugins = try #require(try response.json()["data"] as? [[String: Any]])
                let panel = try #require(plugins.first?["admin_panel"] as? [String: Any])
                let list = try #require((panel["lists"] as? [[String: Any]])?.first)
                #expect(list["id"] as? String == "sessions")
                #expect(list["path"] as? String == "/sessions")
                let columns = try #require(list["columns"] as? [[String: Any]])
                #expect(columns.map { $0["kind"] as? String } == ["link", "amount", "status", "time"])
                #expect(columns[1]["asset_key"] as? String == "currency")
                #expect(columns[0]["link"] == nil)
                let detail = try #require(list["detail"] as? [String: Any])
                #expect(detail["path"] as? String == "/sessions/{id}")
            }
            // The endpoints the panel names answer what the console reads.
            try await client.execute(uri: "/v1/rails/panel-demo/sessions", method: .get, headers: bearer("admin-1", "admin")) { response in
                let rows = try response.json()["data"] as? [Any]
                #expect(rows?.count == 1)
            }
        }
    }

    @Test("panels written before lists existed still decode")
    func oldPanelsDecode() throws {
        let old = #"{"title":"T","summary":"S","links":[{"title":"L","path":"/x"}]}"#
        let panel = try JSONDecoder().decode(AdminPanel.self, from: Data(old.utf8))
        #expect(panel == AdminPanel(title: "T", summary: "S", links: [.init(title: "L", path: "/x")]))
        #expect(panel.lists.isEmpty)
    }
}

/// A rail that exists only to declare a full panel (lists with every column kind and a detail
/// view) over two fixed endpoints, as the BLE sessions rail will.
struct PanelDemoRail: RailPlugin {
    static let id = "panel-demo"
    static let entry = PluginsFile.Entry(id: id, enabled: true, configJSON: "{}", place: "plugins[0]")

    init(context: PluginContext, config: PluginConfig) throws {}

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        let session = ["id": "s-1", "amount": "1250", "currency": "EVT", "status": "open", "created_at": "2026-11-21T10:00:00.000Z"]
        group.get("sessions") { _, context in try context.json(DemoPage(data: [session])) }
        group.get("sessions/{id}") { _, context in try context.json(session) }
    }

    var adminPanel: AdminPanel? {
        AdminPanel(
            title: "Demo sessions",
            summary: "Sessions of a demo rail.",
            lists: [
                .init(
                    id: "sessions",
                    title: "Sessions",
                    path: "/sessions",
                    columns: [
                        .init("id", title: "Session", kind: .link),
                        .init("amount", title: "Amount", kind: .amount, assetKey: "currency"),
                        .init("status", title: "Status", kind: .status),
                        .init("created_at", title: "Opened", kind: .time),
                    ],
                    detail: .init(path: "/sessions/{id}", fields: [.init("status", title: "Status", kind: .status)])
                )
            ]
        )
    }
}

struct DemoPage: Encodable {
    var data: [[String: String]]
    var nextCursor: String? = nil
}
