public import Foundation
public import HTTPTypes
import HubBLESessions
public import HubKernel
public import HubServer
public import HubTestSupport
import Hummingbird
public import HummingbirdTesting
import Testing

/// The rail's `plugins.json` entry with `config`; by default `EUR`, a fast sweeper, no rotation.
public func bleEntry(_ config: String = #"{"default_asset": "EUR", "sweep_interval_ms": 20, "eid_rotation_seconds": 0}"#) -> PluginsFile.Entry {
    PluginsFile.Entry(id: BLESessionsPlugin.id, enabled: true, configJSON: config, place: "plugins[0]")
}

/// A test hub with the BLE sessions rail on, `EUR` (scale 2) as its default asset, and payers
/// `alice`, `bob`, `carol` holding 100.00 EUR each in their wallets. `payee` has a wallet too.
public func withBLEHub(
    on backend: TestBackend,
    config: String? = nil,
    clock: LedgerClock = .system,
    realIdentity: Bool = false,
    devLogin: Bool = false,
    _ body: @Sendable (Hub, BLEAPI) async throws -> Void
) async throws {
    try await withTestHub(
        on: backend,
        builtIn: [BLESessionsPlugin.self],
        plugins: [config.map(bleEntry) ?? bleEntry()],
        clock: clock,
        realIdentity: realIdentity,
        devLogin: devLogin
    ) { hub, client in
        let eur = try await hub.ledger.makeAsset("EUR")
        if !realIdentity {
            for payer in ["alice", "bob", "carol"] {
                let wallet = try await hub.ledger.wallet(of: testUserID(payer), asset: eur.code)
                try await hub.ledger.mint(10_000, of: eur, to: wallet)
            }
            _ = try await hub.ledger.wallet(of: testUserID("payee"), asset: eur.code)
        }
        try await body(hub, BLEAPI(client: client, ledger: hub.ledger))
    }
}

/// The rail's HTTP API as the tests call it.
public struct BLEAPI: Sendable {
    public let client: any TestClientProtocol
    public let ledger: Ledger
    public static let base = "/v1/rails/ble-sessions"

    public init(client: any TestClientProtocol, ledger: Ledger) {
        self.client = client
        self.ledger = ledger
    }

    public func post(_ path: String, as user: String?, _ body: Any? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var all = headers
        if let user { all = all + bearer(user) }
        if body != nil { all = all + jsonHeaders }
        return try await client.execute(uri: Self.base + path, method: .post, headers: all, body: body.map(jsonBody))
    }

    public func get(_ path: String, as user: String) async throws -> TestResponse {
        try await client.execute(uri: Self.base + path, method: .get, headers: bearer(user))
    }

    /// Opens a session as `payee` and returns its JSON.
    public func open(amount: String = "2500", by payee: String = "payee", extra: [String: Any] = [:]) async throws -> [String: Any] {
        var body: [String: Any] = ["amount": amount]
        body.merge(extra) { $1 }
        let response = try await post("/sessions", as: payee, body)
        #expect(response.status == .created, "\(response.text)")
        return try response.json()
    }

    public func lock(_ id: String, as payer: String) async throws -> TestResponse {
        try await post("/sessions/\(id)/lock", as: payer)
    }

    public func pay(_ id: String, as payer: String, key: String = UUID().uuidString) async throws -> TestResponse {
        try await post("/sessions/\(id)/pay", as: payer, headers: [.idempotencyKey: key])
    }

    public func resolve(eid: String) async throws -> TestResponse {
        try await post("/resolve", as: nil, ["eid": eid])
    }

    public func session(_ id: String, as user: String = "payee") async throws -> [String: Any] {
        let response = try await get("/sessions/\(id)", as: user)
        #expect(response.status == .ok, "\(response.text)")
        return try #require(try response.json()["session"] as? [String: Any])
    }

    /// A user's wallet balance in EUR: what they may spend, and what is held.
    public func wallet(_ user: String) async throws -> (available: UInt128, held: UInt128) {
        let account = try #require(try await ledger.account(AccountID.wallet(user: testUserID(user), asset: AssetCode("EUR")!)))
        return (account.available, account.debitsPending)
    }

    /// The types of the rail's events in order.
    public func eventTypes() async throws -> [String] {
        try await events().compactMap { $0["type"] as? String }
    }

    /// The rail's events, oldest first, as the events API shows them.
    public func events() async throws -> [[String: Any]] {
        let response = try await client.execute(uri: "/v1/events?type=ble.*&limit=1000", method: .get, headers: bearer("admin-1", "admin"))
        #expect(response.status == .ok)
        return try response.json()["data"] as? [[String: Any]] ?? []
    }

    /// Ledger transfers posted into the payee's wallet by pays.
    public func paymentsToPayee() async throws -> Int {
        let payee = AccountID.wallet(user: testUserID("payee"), asset: AssetCode("EUR")!)
        return try await ledger.transfers(account: payee, limit: 1000).filter { $0.kind == .postPending }.count
    }
}

/// The `problem+json` code of a response.
public func problemCode(_ response: TestResponse) -> String? { response.object["code"] as? String }
