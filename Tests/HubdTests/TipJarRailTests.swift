import Foundation
import HTTPTypes
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The example rail (`ExampleRail/`) driven through the real hub: plugin host, kernel middleware,
/// ledger and event log, on every enabled backend. It proves the plugin runtime end to end.
@Suite("tip-jar example rail", .timeLimit(.minutes(4)))
struct TipJarRailTests {
    @Test("routes are mounted at /v1/rails/tip-jar and the migrations ran under the plugin's group", arguments: TestBackend.enabled)
    func mountedAndMigrated(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let list = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .get, headers: bearer("user-1"))
            #expect(list.status == .ok)
            #expect(try list.json()["data"] as? [Any] != nil)
            let anonymous = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .get)
            #expect(anonymous.status == .unauthorized)

            let applied = try await hub.database.read { connection in
                try connection.query("SELECT name FROM hub_migrations WHERE group_name = \("tip-jar") ORDER BY position").map { try $0.text("name") }
            }
            #expect(applied == TipJarMigrations.all.map(\.name))
            #expect(PluginID.isValid(TipJarPlugin.id))
            for table in TipJarStore.tables {
                #expect(table.hasPrefix(PluginID.tablePrefix(TipJarPlugin.id)))
                let name = try #require(SQLIdentifier(table))
                let rows = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM \(identifier: name)")?.int("n") }
                #expect(rows == 0)
            }
        }
    }

    @Test("jars are listed oldest first in cursor pages to any authenticated caller", arguments: TestBackend.enabled)
    func listPages(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            var opened: [String] = []
            for _ in 0..<3 { opened.append(try await api.openJar(world)) }
            var seen: [String] = []
            var uri = "/v1/rails/tip-jar/jars?limit=2"
            var pages = 0
            while pages < 5 {
                let page = try (try await api.client.execute(uri: uri, method: .get, headers: bearer("user-2"))).json()
                seen += (page["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                pages += 1
                guard let next = page["next_cursor"] as? String else { break }
                uri = "/v1/rails/tip-jar/jars?limit=2&cursor=\(next)"
            }
            #expect(seen == opened)
            #expect(pages == 2)
            let unknown = try await api.client.execute(uri: "/v1/rails/tip-jar/jars/not-a-uuid", method: .get, headers: bearer("user-2"))
            #expect(unknown.status == .notFound)
        }
    }

    @Test("a tip moves money through the ledger, is a tipjar event, and the total matches", arguments: TestBackend.enabled)
    func tipMovesMoney(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let jar = try await api.openJar(world)

            let first = try await api.tip(jar, ["amount": "250", "from_account_id": world.member.id.description])
            #expect(first.status == .created)
            let second = try await api.tip(jar, ["amount": "100", "from_account_id": world.member.id.description])
            #expect(second.status == .created)
            let receipt = try #require(try second.json()["jar"] as? [String: Any])
            #expect(receipt["total"] as? String == "350")
            #expect(receipt["tip_count"] as? Int == 2)

            #expect(try await api.available(world.member, as: "user-1") == "9650")
            #expect(try await api.balance(world.payee, as: "org-1", "credits_posted") == "350")

            let events = try await api.events()
            #expect(events.map { $0["type"] as? String } == ["tipjar.jar.opened", "tipjar.jar.tipped", "tipjar.jar.tipped"])
            #expect(events.allSatisfy { $0["source"] as? String == "/rails/tip-jar" && $0["subject"] as? String == jar })
            let lastData = try #require(events.last?["data"] as? [String: Any])
            #expect((lastData["jar"] as? [String: Any])?["total"] as? String == "350")
            #expect((lastData["tip"] as? [String: Any])?["amount"] as? String == "100")

            // The jar's total is exactly the ledger's transfers that carry its `ref`.
            #expect(try await api.ledgerTotal(into: world.payee, jar: jar) == 350)
            #expect(try await api.jar(jar)["total"] as? String == "350")
            try await hub.ledger.expectVerified()
        }
    }

    @Test("a tip retried with the same transfer id is counted once", arguments: TestBackend.enabled)
    func retriedTip(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let jar = try await api.openJar(world)
            let transferID = UUID().uuidString.lowercased()
            let body: [String: Any] = ["id": transferID, "amount": "250", "from_account_id": world.member.id.description]

            let first = try await api.tip(jar, body)
            #expect(first.status == .created)
            let retry = try await api.tip(jar, body)
            #expect(retry.status == .ok)
            #expect((try retry.json()["tip"] as? [String: Any])?["transfer_id"] as? String == transferID)

            // The same id for a different tip is the ledger's `exists_with_different_fields`.
            var changed = body
            changed["amount"] = "300"
            let conflicting = try await api.tip(jar, changed)
            #expect(conflicting.status == .unprocessableContent)
            #expect(try conflicting.json()["code"] as? String == "exists_with_different_fields")

            let stored = try await api.jar(jar)
            #expect(stored["total"] as? String == "250")
            #expect(stored["tip_count"] as? Int == 1)
            #expect(try await api.available(world.member, as: "user-1") == "9750")
            #expect(try await api.events().filter { $0["type"] as? String == "tipjar.jar.tipped" }.count == 1)
            #expect(try await api.ledgerTotal(into: world.payee, jar: jar) == 250)
        }
    }

    @Test("a member cannot tip from someone else's account, and nothing changes", arguments: TestBackend.enabled)
    func othersAccount(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let jar = try await api.openJar(world)
            for account in [world.other.id.description, UUID().uuidString] {
                let response = try await api.tip(jar, ["amount": "100", "from_account_id": account], as: "user-1")
                #expect(response.status == .unprocessableContent)
                let problem = try response.json()
                #expect(problem["code"] as? String == "debit_account_not_found")
                #expect(problem["field"] as? String == "from_account_id")
            }
            #expect(try await api.available(world.other, as: "user-2") == "500")
            #expect(try await api.jar(jar)["total"] as? String == "0")
            #expect(try await api.events().map { $0["type"] as? String } == ["tipjar.jar.opened"])
        }
    }

    @Test("bad input gets a 4xx problem naming what is wrong, and changes nothing", arguments: TestBackend.enabled)
    func badInput(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let jar = try await api.openJar(world)
            let otherAsset = try await hub.ledger.makeAsset("OTHER")
            let otherWallet = try await hub.ledger.makeWallet(otherAsset, owner: uid("user-1"))
            try await hub.ledger.mint(100, of: otherAsset, to: otherWallet)
            let from = world.member.id.description

            let tips: [(body: String, status: Int, code: String)] = [
                (#"{"amount": "0", "from_account_id": "\#(from)"}"#, 422, "amount_must_not_be_zero"),
                (#"{"amount": 250, "from_account_id": "\#(from)"}"#, 422, "invalid_field"),
                (#"{"amount": "2.5", "from_account_id": "\#(from)"}"#, 422, "invalid_field"),
                (#"{"amount": "20000", "from_account_id": "\#(from)"}"#, 422, "exceeds_credits"),
                (#"{"amount": "10", "from_account_id": "\#(otherWallet.id)"}"#, 422, "asset_mismatch"),
                (#"{"id": "nope", "amount": "10", "from_account_id": "\#(from)"}"#, 422, "invalid_field"),
                (#"{"amount": "10"}"#, 422, "missing_field"),
                (#"{"amount": "10", "#, 400, "malformed_json"),
            ]
            for (body, status, code) in tips {
                let response = try await api.client.execute(
                    uri: "/v1/rails/tip-jar/jars/\(jar)/tips",
                    method: .post,
                    headers: bearer("user-1") + jsonHeaders,
                    body: ByteBuffer(string: body)
                )
                #expect(response.status.code == status, "\(body)")
                #expect(try response.json()["code"] as? String == code, "\(body)")
            }
            let unknownJar = try await api.tip(UUID().uuidString, ["amount": "10", "from_account_id": from])
            #expect(unknownJar.status == .notFound)
            let notJSON = try await api.client.execute(
                uri: "/v1/rails/tip-jar/jars/\(jar)/tips",
                method: .post,
                headers: bearer("user-1"),
                body: ByteBuffer(string: "amount=10")
            )
            #expect(notJSON.status == .unsupportedMediaType)

            let payee = world.payee.id.description
            let opens: [(caller: HTTPFields, body: [String: Any], status: Int, field: String?)] = [
                (bearer("user-1"), ["asset": "TIP", "payee_account_id": payee, "title": "Mine"], 403, nil),
                (
                    bearer("org-1", "organiser"), ["asset": "TIP", "payee_account_id": payee, "title": String(repeating: "x", count: 81)], 422,
                    "title"
                ),
                (bearer("org-1", "organiser"), ["asset": "TIP", "payee_account_id": payee, "title": "   "], 422, "title"),
                (bearer("org-1", "organiser"), ["asset": "NOPE", "payee_account_id": payee, "title": "Tips"], 422, "asset"),
                (bearer("org-2", "organiser"), ["asset": "TIP", "payee_account_id": payee, "title": "Tips"], 422, "payee_account_id"),
                (
                    bearer("org-1", "organiser"), ["asset": "TIP", "payee_account_id": payee, "title": "Tips", "closes_in_seconds": 0], 422,
                    "closes_in_seconds"
                ),
                (bearer("org-1", "organiser"), ["asset": "TIP", "title": "Tips"], 422, "payee_account_id"),
            ]
            for (caller, body, status, field) in opens {
                let response = try await api.client.execute(
                    uri: "/v1/rails/tip-jar/jars",
                    method: .post,
                    headers: caller + jsonHeaders,
                    body: jsonBody(body)
                )
                #expect(response.status.code == status, "\(body)")
                #expect(try response.json()["field"] as? String == field, "\(body)")
            }

            let jars = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .get, headers: bearer("user-1"))
            #expect((try jars.json()["data"] as? [Any])?.count == 1)
            #expect(try await api.jar(jar)["total"] as? String == "0")
            #expect(try await api.available(world.member, as: "user-1") == "10000")
            #expect(try await api.events().map { $0["type"] as? String } == ["tipjar.jar.opened"])
        }
    }

    @Test("the closer service closes a jar whose time is up and a closed jar refuses tips", arguments: TestBackend.enabled)
    func closerService(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withTipJarHub(on: backend, clock: clock.ledgerClock) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let expiring = try await api.openJar(world, closesInSeconds: 60)
            let lasting = try await api.openJar(world)
            clock.advance(seconds: 61)

            // The closer ticks every 20 ms (the entry's config); give it up to 5 s on a busy machine.
            var status = try await api.jar(expiring)["status"] as? String
            var polls = 0
            while status != "closed", polls < 200 {
                try await Task.sleep(for: .milliseconds(25))
                status = try await api.jar(expiring)["status"] as? String
                polls += 1
            }
            #expect(status == "closed")
            #expect(try await api.jar(expiring)["closed_at"] as? String != nil)
            #expect(try await api.jar(lasting)["status"] as? String == "open")
            let open = try await api.client.execute(uri: "/v1/rails/tip-jar/jars?status=open", method: .get, headers: bearer("user-1"))
            #expect((try open.json()["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [lasting])

            let closedEvents = try await api.events().filter { $0["type"] as? String == "tipjar.jar.closed" }
            #expect(closedEvents.map { $0["subject"] as? String } == [expiring])

            let late = try await api.tip(expiring, ["amount": "10", "from_account_id": world.member.id.description])
            #expect(late.status == .conflict)
            #expect(try late.json()["code"] as? String == "jar_closed")
            #expect(try await api.available(world.member, as: "user-1") == "10000")

            // A tip interrupted after its transfer reached the ledger (as if the hub crashed
            // before counting it) is completed by the client's retry, even once the jar closed.
            let interrupted = TransferID.random()
            let payee = try #require(AccountID(try await api.jar(expiring)["payee_account_id"] as? String ?? ""))
            let reference = TransferReference(rail: "tip-jar", type: "jar", id: expiring)
            let moved = try await hub.ledger.submit(
                TransferRequest(
                    id: interrupted,
                    action: .post(debit: world.member.id, credit: payee, amount: 40, asset: world.asset.code),
                    reference: reference
                )
            )
            #expect(moved.transfer != nil)
            let retry = try await api.tip(
                expiring,
                ["id": interrupted.description, "amount": "40", "from_account_id": world.member.id.description]
            )
            #expect(retry.status == .created)
            #expect(try await api.jar(expiring)["total"] as? String == "40")
            #expect(try await api.ledgerTotal(into: world.payee, jar: expiring) == 40)
        }
    }

    @Test("an Idempotency-Key replays the opening of a jar instead of opening a second", arguments: TestBackend.enabled)
    func idempotentOpen(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let world = try await TipJarWorld.make(hub.ledger)
            let body = jsonBody(["asset": "TIP", "payee_account_id": world.payee.id.description, "title": "Coffee"])
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "open-coffee-1"]
            let headers = bearer("org-1", "organiser") + jsonHeaders + key
            let first = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .post, headers: headers, body: body)
            let second = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .post, headers: headers, body: body)
            #expect(first.status == .created)
            let ids = (try first.json()["id"] as? String, try second.json()["id"] as? String)
            #expect(second.status == .created)
            #expect(second.headers[HTTPField.Name("Idempotency-Replayed")!] == "true")
            #expect(ids.0 == ids.1)
            #expect(try await api.events().map { $0["type"] as? String } == ["tipjar.jar.opened"])
        }
    }

    @Test("GET /v1/plugins lists tip-jar as running, healthy, with its admin panel", arguments: TestBackend.enabled)
    func pluginsList(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend) { hub, api in
            let plugin = try await api.pluginEntry()
            #expect(plugin["status"] as? String == "running")
            #expect(plugin["route_prefix"] as? String == "/v1/rails/tip-jar")
            #expect(plugin["event_types"] as? [String] == ["tipjar.jar.opened", "tipjar.jar.tipped", "tipjar.jar.closed"])
            #expect((plugin["health"] as? [String: Any])?["status"] as? String == "ok")
            let panel = try #require(plugin["admin_panel"] as? [String: Any])
            #expect(panel["title"] as? String == "Tip jars")
            #expect((panel["links"] as? [[String: Any]])?.first?["path"] as? String == "/jars")

            // Health is a real query of the plugin's table: without the table it reports down.
            try await hub.database.write { connection in
                try connection.execute("DROP TABLE tip_jar_tips")
                try connection.execute("DROP TABLE tip_jar_jars")
            }
            #expect((try await api.pluginEntry()["health"] as? [String: Any])?["status"] as? String == "down")
        }
    }

    @Test("a disabled entry leaves the routes unmounted and the migrations unapplied", arguments: TestBackend.enabled)
    func disabled(backend: TestBackend) async throws {
        try await withTipJarHub(on: backend, enabled: false) { hub, api in
            let response = try await api.client.execute(uri: "/v1/rails/tip-jar/jars", method: .get, headers: bearer("user-1"))
            #expect(response.status == .notFound)
            let plugin = try await api.pluginEntry()
            #expect(plugin["status"] as? String == "disabled")
            #expect(plugin["health"] == nil || plugin["health"] is NSNull)
            let applied = try await hub.database.read { connection in
                try connection.queryFirst("SELECT count(*) AS n FROM hub_migrations WHERE group_name = 'tip-jar'")?.int("n")
            }
            #expect(applied == 0)
        }
    }

    /// Configuration is checked before any storage is touched, so one backend is enough here.
    @Test(
        "a bad config stops start-up with an error naming the file, the plugin and the field",
        arguments: [
            (#"{"max_title_length": "x"}"#, "plugins[0].config.max_title_length"),
            (#"{"max_title_length": 0}"#, "plugins[0].config.max_title_length"),
            (#"{"close_check_interval_ms": 1}"#, "plugins[0].config.close_check_interval_ms"),
            (#"{"colour": "red"}"#, "plugins[0].config.colour"),
        ]
    )
    func badConfig(config: String, field: String) async throws {
        try await withDatabase(on: .sqlite) { database in
            let error = #expect(throws: ConfigurationError.self) {
                _ = try HubAssembly.make(
                    database: database,
                    pluginsFile: PluginsFile(entries: [tipJarEntry(config: config)], path: "conf/plugins.json"),
                    builtIn: [TipJarPlugin.self],
                    logger: Logger(label: "test")
                )
            }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.hasPrefix("conf/plugins.json: plugin 'tip-jar' (\(field)): "), "\(text)")
        }
    }

    @Test("an empty config keeps the defaults; given values are used")
    func configDefaults() throws {
        #expect(try TipJarConfiguration(PluginConfig()) == TipJarConfiguration())
        let configured = try TipJarConfiguration(PluginConfig(json: #"{"max_title_length": 20, "close_check_interval_ms": 50}"#))
        #expect(configured.maxTitleLength == 20)
        #expect(configured.closeCheckInterval == .milliseconds(50))
    }
}

// MARK: - Support

/// The `plugins.json` entry of the rail, as the first entry of the file.
func tipJarEntry(config: String = #"{"close_check_interval_ms": 20}"#, enabled: Bool = true) -> PluginsFile.Entry {
    PluginsFile.Entry(id: TipJarPlugin.id, enabled: enabled, configJSON: config, place: "plugins[0]")
}

/// A test hub with the tip-jar rail built in (enabled unless said otherwise).
func withTipJarHub(
    on backend: TestBackend,
    enabled: Bool = true,
    clock: LedgerClock = .system,
    _ body: @Sendable (Hub, TipJarAPI) async throws -> Void
) async throws {
    try await withTestHub(on: backend, builtIn: [TipJarPlugin.self], plugins: [tipJarEntry(enabled: enabled)], clock: clock) { hub, client in
        try await body(hub, TipJarAPI(client: client, backend: backend))
    }
}

/// Asset `TIP` organised by `org-1`; `user-1` holds 10000 in `member`, `user-2` 500 in `other`;
/// `org-1` collects into `payee`.
struct TipJarWorld {
    let asset: Asset
    let member: Account
    let other: Account
    let payee: Account

    static func make(_ ledger: Ledger) async throws -> TipJarWorld {
        let asset = try #require(
            try await ledger.createAsset(NewAsset(code: AssetCode("TIP")!, scale: 2, name: "Tips", organiserID: uid("org-1"))).value
        )
        let world = TipJarWorld(
            asset: asset,
            member: try await ledger.makeWallet(asset, owner: uid("user-1")),
            other: try await ledger.makeWallet(asset, owner: uid("user-2")),
            payee: try await ledger.makeWallet(asset, owner: uid("org-1"))
        )
        try await ledger.mint(10_000, of: asset, to: world.member)
        try await ledger.mint(500, of: asset, to: world.other)
        return world
    }
}

/// The calls the tests make, through the public HTTP API only.
struct TipJarAPI {
    let client: any TestClientProtocol
    let backend: TestBackend

    /// Opens a jar as `org-1` and returns its id.
    func openJar(_ world: TipJarWorld, closesInSeconds: Int? = nil) async throws -> String {
        var body: [String: Any] = ["asset": "TIP", "payee_account_id": world.payee.id.description, "title": "Coffee for the crew"]
        body["closes_in_seconds"] = closesInSeconds
        let response = try await client.execute(
            uri: "/v1/rails/tip-jar/jars",
            method: .post,
            headers: bearer("org-1", "organiser") + jsonHeaders,
            body: jsonBody(body)
        )
        #expect(response.status == .created, "\(response.text)")
        return try #require(try response.json()["id"] as? String)
    }

    func tip(_ jar: String, _ body: [String: Any], as user: String = "user-1") async throws -> TestResponse {
        try await client.execute(uri: "/v1/rails/tip-jar/jars/\(jar)/tips", method: .post, headers: bearer(user) + jsonHeaders, body: jsonBody(body))
    }

    func jar(_ id: String) async throws -> [String: Any] {
        let response = try await client.execute(uri: "/v1/rails/tip-jar/jars/\(id)", method: .get, headers: bearer("user-2"))
        #expect(response.status == .ok)
        return try response.json()
    }

    /// A balance of an account as its owner sees it through `GET /v1/ledger/accounts/{id}`.
    func balance(_ account: Account, as owner: String, _ name: String) async throws -> String? {
        let response = try await client.execute(uri: "/v1/ledger/accounts/\(account.id)", method: .get, headers: bearer(owner))
        #expect(response.status == .ok)
        return (try response.json()["balances"] as? [String: Any])?[name] as? String
    }

    func available(_ account: Account, as owner: String) async throws -> String? {
        try await balance(account, as: owner, "available")
    }

    /// The sum of the ledger transfers into `account` whose `ref` names the jar.
    func ledgerTotal(into account: Account, jar: String) async throws -> UInt128 {
        let response = try await client.execute(
            uri: "/v1/ledger/transfers?account_id=\(account.id)",
            method: .get,
            headers: bearer("admin-1", "admin")
        )
        let transfers = try #require(try response.json()["data"] as? [[String: Any]])
        return transfers.reduce(0) { sum, transfer in
            let ref = transfer["ref"] as? [String: Any]
            guard ref?["rail"] as? String == "tip-jar", ref?["type"] as? String == "jar", ref?["id"] as? String == jar else { return sum }
            return sum + (UInt128(canonicalDecimal: transfer["amount"] as? String ?? "") ?? 0)
        }
    }

    /// The rail's events, read as an admin from the kernel's event log with `?type=tipjar.*`.
    func events() async throws -> [[String: Any]] {
        let admin = bearer("admin-1", "admin")
        let filtered = try await client.execute(uri: "/v1/events?type=tipjar.*&limit=1000", method: .get, headers: admin)
        #expect(filtered.status == .ok)
        return try #require(try filtered.json()["data"] as? [[String: Any]])
    }

    /// The `tip-jar` item of `GET /v1/plugins`.
    func pluginEntry() async throws -> [String: Any] {
        let response = try await client.execute(uri: "/v1/plugins", method: .get, headers: bearer("user-1"))
        #expect(response.status == .ok)
        let items = try #require(try response.json()["data"] as? [[String: Any]])
        return try #require(items.first { $0["id"] as? String == "tip-jar" })
    }
}
