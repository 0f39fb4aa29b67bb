import Foundation
import HubKernel
import Testing

/// ``AdminPanel/validate()``: what the console relies on (ids, paths it appends to the rail's
/// prefix, placeholders it can fill, members actions send) is refused at start-up, named.
@Suite("admin panel validation")
struct AdminPanelValidationTests {
    typealias Panel = AdminPanel

    static let grant = Panel.Action(
        id: "grant",
        title: "Grant",
        path: "/chains/{chain_id}/grants",
        fields: [.init("to", label: "To", kind: .address), .init("amount", label: "Amount", kind: .amount)],
        confirmation: "Grant?",
        statuses: ["active"],
        idField: "id"
    )

    static func panel(detail: Panel.Detail? = nil, listPath: String = "/chains", id: String = "chains") -> Panel {
        Panel(
            title: "Chains",
            summary: "S",
            links: [.init(title: "JSON", path: "/chains")],
            lists: [
                .init(
                    id: id,
                    title: "Chains",
                    path: listPath,
                    columns: [
                        .init("chain_id", title: "Id", kind: .link), .init("transfer", title: "T", kind: .link, link: "/admin/transfers?id={value}"),
                    ],
                    detail: detail
                )
            ]
        )
    }

    static let related = Panel.List(
        id: "blocks",
        title: "Blocks",
        path: "/chains/{chain_id}/blocks?limit=10",
        columns: [.init("number", title: "Block", kind: .link)],
        detail: .init(path: "/chains/{chain_id}/blocks/{number}")
    )

    static func location(of panel: Panel) -> String? {
        do {
            try panel.validate()
            return nil
        } catch let error as AdminPanelError {
            return error.location
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a panel with related lists and actions is valid")
    func valid() {
        let panel = Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [Self.related], actions: [Self.grant]))
        #expect(Self.location(of: panel) == nil)
    }

    @Test(
        "bad ids and paths are refused where they are",
        arguments: [
            (panel(id: "Chains"), "lists[0].id"),
            (panel(id: ""), "lists[0].id"),
            (panel(listPath: "chains"), "lists[0].path"),
            (panel(listPath: "/chains/../../ledger"), "lists[0].path"),
            (panel(listPath: "//evil.example/x"), "lists[0].path"),
            (panel(listPath: "/chains/{chain_id}"), "lists[0].path"),  // nothing to fill a top-level list from
            (panel(listPath: "/chains/{chain id}"), "lists[0].path"),
            (panel(listPath: "/chains/{chain_id"), "lists[0].path"),
            (panel(listPath: "/chains#x"), "lists[0].path"),
            (panel(detail: .init(path: "/chains/{chain_id}}")), "lists[0].detail.path"),
        ]
    )
    func refusedPaths(panel: Panel, location: String) {
        #expect(Self.location(of: panel) == location)
    }

    @Test("related lists: unique ids, templated paths, one level only")
    func relatedLists() {
        let twice = Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [Self.related, Self.related]))
        #expect(Self.location(of: twice) == "lists[0].detail.lists[1].id")
        var nested = Self.related
        nested.detail?.actions = [Self.grant]
        #expect(
            Self.location(of: Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [nested]))) == "lists[0].detail.lists[0].detail.actions"
        )
        var deeper = Self.related
        deeper.detail?.lists = [Self.related]
        #expect(Self.location(of: Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [deeper]))) == "lists[0].detail.lists[0].detail.lists")
        var noColumns = Self.related
        noColumns.columns = []
        #expect(Self.location(of: Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [noColumns]))) == "lists[0].detail.lists[0].columns")
    }

    @Test("actions: id, route, confirmation, snake_case members, no id field clashing with a field")
    func actions() {
        func check(_ change: (inout Panel.Action) -> Void) -> String? {
            var action = Self.grant
            change(&action)
            return Self.location(of: Self.panel(detail: .init(path: "/chains/{chain_id}", actions: [action])))
        }
        let at = "lists[0].detail.actions[0]"
        #expect(check { _ in } == nil)
        #expect(check { $0.id = "Grant!" } == "\(at).id")
        #expect(check { $0.path = "https://elsewhere.example/grants" } == "\(at).path")
        #expect(check { $0.path = "/chains/{chain_id}/../../../ledger/transfers" } == "\(at).path")
        #expect(check { $0.confirmation = "" } == "\(at).confirmation")
        #expect(check { $0.fields[1].name = "to" } == "\(at).fields[1].name")
        #expect(check { $0.fields[0].name = "toAddress" } == "\(at).fields[0].name")
        #expect(check { $0.fields[0].label = "" } == "\(at).fields[0].label")
        #expect(check { $0.idField = "amount" } == "\(at).id_field")
        #expect(check { $0.statusKey = "head..status" } == "\(at).status_key")
        #expect(check { $0.statuses = [""] } == "\(at).statuses[0]")
        let twice = Self.panel(detail: .init(path: "/chains/{chain_id}", actions: [Self.grant, Self.grant]))
        #expect(Self.location(of: twice) == "lists[0].detail.actions[1].id")
    }

    @Test("columns: key paths, console links under /admin/, images with a path")
    func columns() {
        var panel = Self.panel()
        panel.lists[0].columns[1].link = "https://elsewhere.example/{value}"
        #expect(Self.location(of: panel) == "lists[0].columns[1].link")
        panel.lists[0].columns[1] = .init("images", title: "Images", kind: .images)
        #expect(Self.location(of: panel) == "lists[0].columns[1].link")
        panel.lists[0].columns[1] = .init("payee..name", title: "Payee")
        #expect(Self.location(of: panel) == "lists[0].columns[1].key")
    }

    @Test("the error names the place and the rule")
    func message() throws {
        let error = try #require(throws: AdminPanelError.self) { try Self.panel(listPath: "/a/../b").validate() }
        #expect(error.description == "admin panel lists[0].path: a path has no empty, '.' or '..' segment")
    }

    @Test("actions and related lists travel as the API documents them, and details from before them still decode")
    func coding() throws {
        let panel = Self.panel(detail: .init(path: "/chains/{chain_id}", lists: [Self.related], actions: [Self.grant]))
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(panel)) as? [String: Any])
        let detail = try #require(((object["lists"] as? [[String: Any]])?.first?["detail"]) as? [String: Any])
        let action = try #require((detail["actions"] as? [[String: Any]])?.first)
        #expect(action["id_field"] as? String == "id")
        #expect(action["statuses"] as? [String] == ["active"])
        #expect((action["fields"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["address", "amount"])
        #expect((detail["lists"] as? [[String: Any]])?.first?["path"] as? String == "/chains/{chain_id}/blocks?limit=10")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(Panel.self, from: encoder.encode(panel)) == panel)

        let old = #"{"path":"/sessions/{id}","fields":[]}"#
        let decoded = try JSONDecoder().decode(Panel.Detail.self, from: Data(old.utf8))
        #expect(decoded == Panel.Detail(path: "/sessions/{id}"))
    }
}
