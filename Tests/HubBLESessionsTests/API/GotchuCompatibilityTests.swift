import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The Gotchu-compatible surface, driven as the existing app drives it (`specs/rails.md` §5.5:
/// dev-login → create / resolve → lock → send with an Idempotency-Key → wallet/me), with real
/// users and tokens.
@Suite("BLE sessions: Gotchu-compatible surface", .timeLimit(.minutes(3)))
struct GotchuCompatibilityTests {
    static let config = #"{"default_asset": "EUR", "gotchu_compatible": true, "sweep_interval_ms": 50, "eid_rotation_seconds": 0}"#
    static let base = "/v1/rails/ble-sessions/gotchu"

    /// Users `payee@…` ("Pat Payee"), `payer@…` and `other@…`, payers with 50.00 EUR each.
    static func makeUsers(_ hub: Hub) async throws {
        let admin = try await hub.identity.users.createAdmin(email: "admin@example.org", password: "correct horse battery")
        let principal = Principal(userID: admin.id, roles: [.admin], credential: .accessToken(tokenID: "setup"), scopes: nil)
        let eur = try #require(try await hub.ledger.asset(AssetCode("EUR")!))
        for (email, name) in [("payee@example.org", "Pat Payee"), ("payer@example.org", "Sam Payer"), ("other@example.org", "Olu Other")] {
            let user = try await hub.identity.users.create(NewUser(email: email, displayName: name, roles: [.member], password: nil), by: principal)
            let wallet = try await hub.ledger.wallet(of: user.id, asset: eur.code)
            if email != "payee@example.org" { try await hub.ledger.mint(5_000, of: eur, to: wallet) }
        }
        // One who has never had a wallet.
        _ = try await hub.identity.users.create(
            NewUser(email: "fresh@example.org", displayName: "Fay Fresh", roles: [.member], password: nil),
            by: principal
        )
    }

    /// A hub with the surface on, dev-login on, real users (``makeUsers``) and the app's client.
    static func withGotchuHub(on backend: TestBackend, _ body: @Sendable (Hub, App) async throws -> Void) async throws {
        try await withTestHub(
            on: backend,
            builtIn: [BLESessionsPlugin.self],
            plugins: [bleEntry(config)],
            realIdentity: true,
            devLogin: true
        ) { hub, client in
            _ = try await hub.ledger.makeAsset("EUR")
            try await makeUsers(hub)
            try await body(hub, App(client: client))
        }
    }

    struct App {
        let client: any TestClientProtocol

        func call(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, _ body: Any? = nil, headers: HTTPFields = [:]) async throws
            -> TestResponse
        {
            var all = headers
            if let token { all[.authorization] = "Bearer \(token)" }
            if body != nil { all[.contentType] = "application/json" }
            return try await client.execute(uri: GotchuCompatibilityTests.base + path, method: method, headers: all, body: body.map(jsonBody))
        }

        func login(_ email: String) async throws -> String {
            let response = try await call(.post, "/auth/dev-login", ["email": email])
            #expect(response.status == .ok, "\(response.text)")
            #expect(response.object["user_id"] as? String != nil)
            return try #require(response.object["token"] as? String)
        }
    }

    @Test("the app's whole flow, in Gotchu's shapes and integer cents", arguments: TestBackend.enabled)
    func appFlow(backend: TestBackend) async throws {
        try await Self.withGotchuHub(on: backend) { hub, app in
            let health = try await app.call(.get, "/health")
            #expect(health.status == .ok)
            #expect(health.text == "OK")

            let payee = try await app.login("payee@example.org")
            let payer = try await app.login("payer@example.org")
            let other = try await app.login("other@example.org")

            let created = try await app.call(.post, "/sessions/create", token: payee, ["amount_cents": 1250])
            #expect(created.status == .ok, "\(created.text)")
            let sid = try #require(created.object["sid"] as? String)
            let eid = try #require(created.object["eid"] as? String)
            #expect(created.object["exp_at"] as? String != nil)
            #expect(Set(created.object.keys) == ["sid", "eid", "exp_at"])

            let resolved = try await app.call(.post, "/sessions/resolve", ["eid": eid])
            #expect(resolved.status == .ok)
            #expect(resolved.object["sid"] as? String == sid)
            #expect(resolved.object["amount_cents"] as? Int == 1250)
            #expect((resolved.object["payee_display"] as? [String: Any])?["name"] as? String == "Pat Payee")

            let locked = try await app.call(.post, "/sessions/lock", token: payer, ["sid": sid])
            #expect(locked.status == .ok)
            #expect(locked.object["ok"] as? Bool == true)
            let busy = try await app.call(.post, "/sessions/lock", token: other, ["sid": sid])
            #expect(busy.status == .conflict)
            #expect(busy.object["error"] as? String == "busy")

            let key: HTTPFields = [.idempotencyKey: "7F2C-TAP-1"]
            let sent = try await app.call(.post, "/wallet/send", token: payer, ["sid": sid], headers: key)
            #expect(sent.status == .ok, "\(sent.text)")
            #expect(sent.object["ok"] as? Bool == true)
            #expect(sent.object["new_balance_cents"] as? Int == 3750)
            // Unlike Gotchu (409 "duplicate request"), a repeated key replays the first answer.
            let repeated = try await app.call(.post, "/wallet/send", token: payer, ["sid": sid], headers: key)
            #expect(repeated.status == .ok)
            #expect(repeated.text == sent.text)
            let again = try await app.call(.post, "/wallet/send", token: payer, ["sid": sid], headers: [.idempotencyKey: "7F2C-TAP-2"])
            #expect(again.status == .conflict)
            #expect(again.object["error"] as? String == "busy/paid")

            let wallet = try await app.call(.get, "/wallet/me", token: payer)
            #expect(wallet.status == .ok)
            #expect(wallet.object["available_cents"] as? Int == 3750)
            let recent = try #require(wallet.object["recent"] as? [[String: Any]])
            let send = try #require(recent.first)
            #expect(send["type"] as? String == "SEND_P2P")
            #expect(send["direction"] as? String == "DEBIT")
            #expect(send["amount_cents"] as? String == "1250")
            #expect(send["ref_type"] as? String == "PAYMENT_SESSION")
            #expect(send["ref_id"] as? String == sid)
            let payeeWallet = try await app.call(.get, "/wallet/me", token: payee)
            #expect(payeeWallet.object["available_cents"] as? Int == 1250)
            #expect((payeeWallet.object["recent"] as? [[String: Any]])?.first?["type"] as? String == "RECEIVE_P2P")
            try await hub.ledger.expectVerified()
        }
    }

    @Test("Gotchu's errors, word for word, and sending without a lock as the app may", arguments: TestBackend.enabled)
    func errors(backend: TestBackend) async throws {
        try await Self.withGotchuHub(on: backend) { hub, app in
            let missing = try await app.call(.post, "/auth/dev-login", ["email": "nobody@example.org"])
            #expect(missing.status == .notFound)
            #expect(missing.object["error"] as? String == "not found")
            #expect(try await app.call(.post, "/auth/dev-login", [String: Any]()).object["error"] as? String == "email required")
            let payee = try await app.login("payee@example.org")
            let payer = try await app.login("payer@example.org")

            #expect(try await app.call(.get, "/wallet/me").status == .unauthorized)
            // #18: a new user has an (empty) wallet at once; malformed JSON is named as such.
            let fresh = try await app.login("fresh@example.org")
            let empty = try await app.call(.get, "/wallet/me", token: fresh)
            #expect(empty.status == .ok, "\(empty.text)")
            #expect(empty.object["available_cents"] as? Int == 0)
            let malformed = try await app.client.execute(
                uri: Self.base + "/sessions/create",
                method: .post,
                headers: [.authorization: "Bearer \(payee)", .contentType: "application/json"],
                body: ByteBuffer(string: "{\"amount_cents\": ")
            )
            #expect(malformed.status == .badRequest)
            #expect(malformed.object["error"] as? String == "invalid json", "\(malformed.text)")
            for amount in [0, -5, 12.5, "1250"] as [Any] {
                let response = try await app.call(.post, "/sessions/create", token: payee, ["amount_cents": amount])
                #expect(response.status == .badRequest, "\(amount)")
                #expect(response.object["error"] as? String == "invalid amount", "\(amount)")
            }
            #expect(try await app.call(.post, "/sessions/resolve", [String: Any]()).object["error"] as? String == "eid required")
            let unknown = try await app.call(.post, "/sessions/resolve", ["eid": "ffffffffff"])
            #expect(unknown.status == .notFound)
            #expect(unknown.object["error"] as? String == "not found")
            #expect(try await app.call(.post, "/sessions/lock", token: payer, [String: Any]()).object["error"] as? String == "sid required")
            let noSession = try await app.call(.post, "/wallet/send", token: payer, ["sid": "00000000-0000-0000-0000-000000000000"])
            #expect(noSession.status == .notFound)
            #expect(noSession.object["error"] as? String == "session not found")

            let sid = try #require(try await app.call(.post, "/sessions/create", token: payee, ["amount_cents": 9000]).object["sid"] as? String)
            let poor = try await app.call(.post, "/wallet/send", token: payer, ["sid": sid])
            #expect(poor.status == .badRequest)
            #expect(poor.object["error"] as? String == "insufficient funds")
            let selfPay = try await app.call(.post, "/wallet/send", token: payee, ["sid": sid])
            #expect(selfPay.object["error"] as? String == "cannot pay self")

            // The app may skip the lock: send locks and pays in one call.
            let small = try #require(try await app.call(.post, "/sessions/create", token: payee, ["amount_cents": 100]).object["sid"] as? String)
            let direct = try await app.call(.post, "/wallet/send", token: payer, ["sid": small])
            #expect(direct.status == .ok, "\(direct.text)")
            #expect(direct.object["new_balance_cents"] as? Int == 4900)
            // The same with an Idempotency-Key: the pay refused for want of a lock, which the send
            // then takes, must leave the key to the send's own answer, which a retry replays.
            let keyed = try #require(try await app.call(.post, "/sessions/create", token: payee, ["amount_cents": 100]).object["sid"] as? String)
            let key: HTTPFields = [.idempotencyKey: "7F2C-DIRECT-1"]
            let first = try await app.call(.post, "/wallet/send", token: payer, ["sid": keyed], headers: key)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.object["new_balance_cents"] as? Int == 4800)
            let retried = try await app.call(.post, "/wallet/send", token: payer, ["sid": keyed], headers: key)
            #expect(retried.status == .ok, "\(retried.text)")
            #expect(retried.text == first.text)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("off by default, and dev-login only when the kernel's dev-login is on", arguments: TestBackend.enabled)
    func switches(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { _, api in
            let response = try await api.client.execute(uri: Self.base + "/health", method: .get)
            #expect(response.status == .notFound)
        }
        try await withBLEHub(on: backend, config: Self.config) { _, api in
            #expect(try await api.client.execute(uri: Self.base + "/health", method: .get).status == .ok)
            let login = try await api.client.execute(
                uri: Self.base + "/auth/dev-login",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["email": "a@example.org"])
            )
            #expect(login.status == .notFound)
        }
    }
}
