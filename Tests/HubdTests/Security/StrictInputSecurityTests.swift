import Foundation
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubBLESessions
@testable import HubKernel
@testable import HubLocalChain

/// Issue #12, input: what a client did not mean is refused, naming the member.
@Suite("security: strict input", .timeLimit(.minutes(4)))
struct StrictInputSecurityTests {
    static let admin = bearer("admin-1", "admin")

    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: [String: Any], as caller: HTTPFields = admin) async throws
        -> TestResponse
    {
        try await client.execute(uri: uri, method: .post, headers: caller + jsonHeaders, body: jsonBody(body))
    }

    @Test(
        "#19 an unknown member is refused with 422 naming it (and the member meant), at any depth, on rails' routes too",
        arguments: TestBackend.enabled
    )
    func unknownMembersRefused(backend: TestBackend) async throws {
        try await withTestHub(on: backend, builtIn: [BLESessionsPlugin.self], plugins: [bleEntry()], realIdentity: true) { hub, client in
            let (admin, _) = try await IdentityAPITests.signInAdmin(hub, client)
            let auth = IdentityAPITests.auth(admin)
            // `role` where the field is `roles`: refused, and no user made.
            let user = try await Self.post(client, "/v1/users", ["email": "org@example.test", "display_name": "Org", "role": "organiser"], as: auth)
            #expect(user.status == .unprocessableContent, "\(user.text)")
            #expect(user.object["code"] as? String == "unknown_field")
            #expect(user.object["field"] as? String == "role")
            #expect((user.object["detail"] as? String)?.contains("did you mean `roles`") == true, "\(user.text)")
            #expect(try await hub.identity.users.user(email: "org@example.test") == nil)

            _ = try await hub.ledger.makeAsset("EUR")
            let batch = try await Self.post(
                client,
                "/v1/ledger/transfers/batch",
                [
                    "transfers": [
                        [
                            "debit_account_id": UUID().uuidString, "credit_account_id": UUID().uuidString, "amount": "1", "asset": "EUR",
                            "ref": ["rail": "shop", "type": "order", "id": "1", "extra": "x"],
                        ]
                    ]
                ],
                as: auth
            )
            #expect(batch.status == .unprocessableContent)
            #expect(batch.object["field"] as? String == "transfers[0].ref.extra", "\(batch.text)")

            // A rail's route: the BLE sessions' create.
            let session = try await Self.post(client, "/v1/rails/ble-sessions/sessions", ["amount": "100", "ammount": "200"], as: auth)
            #expect(session.status == .unprocessableContent, "\(session.text)")
            #expect(session.object["field"] as? String == "ammount")

            // Free-form metadata keeps its keys exactly as sent, whatever they are.
            let account = try await Self.post(
                client,
                "/v1/ledger/accounts",
                ["asset": "EUR", "metadata": ["order_id": "42", "anyThing-goes": "yes"]],
                as: auth
            )
            #expect(account.status == .created, "\(account.text)")
            #expect(account.object["metadata"] as? [String: String] == ["order_id": "42", "anyThing-goes": "yes"])
        }
    }

    @Test("#19 plugin configuration refuses unknown options at any depth, naming the place")
    func unknownConfigurationOptions() throws {
        let misspelt = #expect(throws: PluginConfigError.self) { try LocalChainConfiguration(PluginConfig(json: #"{"seal_tik_ms": 50}"#)) }
        #expect(misspelt?.field == "seal_tik_ms")
        #expect(misspelt?.message.contains("did you mean `seal_tick_ms`") == true)
        do {
            _ = try LocalChainConfiguration(
                PluginConfig(json: #"{"relay": {"upstream": "http://a", "upstream_sync": "ws://a", "chains": [7], "reconect_delay_ms": 10}}"#)
            )
            Issue.record("a misspelt nested option was accepted")
        } catch let error as PluginConfigError {
            #expect(error.field == "relay.reconect_delay_ms")
            #expect(error.message.contains("reconnect_delay_ms"), "\(error)")
        }
    }
}

extension StrictInputSecurityTests {
    @Test("#16 numbers of the wrong kind are 422 naming the member, not 'not valid JSON'", arguments: TestBackend.enabled)
    func wrongNumbers(backend: TestBackend) async throws {
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [localChainEntry(keyFile: localChainKeyFile())]) {
            hub,
            client in
            let cases: [(uri: String, body: [String: Any], field: String)] = [
                ("/v1/assets", ["code": "NEGA", "scale": -1, "name": "Negative"], "scale"),
                ("/v1/assets", ["code": "FRAC", "scale": 1.5, "name": "Fraction"], "scale"),
                ("/v1/assets", ["code": "HUGE", "scale": 300, "name": "Too big"], "scale"),
                ("/v1/rails/localchain/chains", ["chain_id": 1.5, "name": "Fest", "currency_name": "F", "symbol": "F", "decimals": 2], "chain_id"),
                ("/v1/rails/localchain/chains", ["chain_id": -7, "name": "Fest", "currency_name": "F", "symbol": "F", "decimals": 2], "chain_id"),
            ]
            for (uri, body, field) in cases {
                let response = try await Self.post(client, uri, body, as: bearer("org-1", "organiser"))
                #expect(response.status == .unprocessableContent, "\(body): \(response.text)")
                #expect(response.object["field"] as? String == field, "\(body): \(response.text)")
            }
            // Unparsable bytes stay 400.
            let garbage = try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.admin + jsonHeaders,
                body: ByteBuffer(string: "{\"code\": ")
            )
            #expect(garbage.status == .badRequest)
        }
    }
}

extension StrictInputSecurityTests {
    @Test("#16 a transfer the wallet cannot cover is insufficient funds whatever its size, said in the asset's units", arguments: TestBackend.enabled)
    func insufficientFundsInAssetUnits(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let eur = try await hub.ledger.makeAsset("EUR")
            let alice = try await hub.ledger.wallet(of: testUserID("alice"), asset: eur.code)
            let bob = try await hub.ledger.wallet(of: testUserID("bob"), asset: eur.code)
            try await hub.ledger.mint(4_500, of: eur, to: alice)
            for amount in ["340282366920938463463374607431768211455", "100000"] {
                let response = try await Self.post(
                    client,
                    "/v1/ledger/transfers",
                    ["debit_account_id": alice.id.description, "credit_account_id": bob.id.description, "amount": amount, "asset": "EUR"],
                    as: bearer("alice")
                )
                #expect(response.status == .unprocessableContent)
                #expect(response.object["code"] as? String == "exceeds_credits", "\(response.text)")
                #expect((response.object["detail"] as? String)?.contains("45.00 EUR available") == true, "\(response.text)")
            }
            #expect(try await hub.ledger.account(alice.id)?.available == 4_500)
        }
    }

    @Test("#16 timestamps inside event data are RFC 3339, as everywhere else in the API", arguments: TestBackend.enabled)
    func eventTimestamps(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let eur = try await hub.ledger.makeAsset("EUR")
            let alice = try await hub.ledger.wallet(of: testUserID("alice"), asset: eur.code)
            let minted = try await hub.ledger.mint(100, of: eur, to: alice)
            let events = try await client.execute(uri: "/v1/events?type=ledger.*&limit=100", method: .get, headers: Self.admin)
            let data = (try events.json()["data"] as? [[String: Any]] ?? []).compactMap { $0["data"] as? [String: Any] }
            let posted = try #require(data.first { $0["id"] as? String == minted.id.description })
            #expect(posted["timestamp"] as? String == minted.timestamp.description)
            #expect(RFC3339.parse(posted["timestamp"] as? String ?? "") != nil)
            let accounts = data.compactMap { $0["created_at"] as? String }
            #expect(!accounts.isEmpty && accounts.allSatisfy { RFC3339.parse($0) != nil }, "\(accounts)")
        }
    }
}

extension StrictInputSecurityTests {
    @Test("#16 ?asset= filters account lists", arguments: TestBackend.enabled)
    func accountListByAsset(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            for code in ["EUR", "USD"] {
                let asset = try await hub.ledger.makeAsset(code)
                _ = try await hub.ledger.wallet(of: testUserID("alice"), asset: asset.code)
            }
            let listed = try await client.execute(uri: "/v1/ledger/accounts?asset=USD", method: .get, headers: bearer("alice"))
            let assets = (try listed.json()["data"] as? [[String: Any]] ?? []).compactMap { $0["asset"] as? String }
            #expect(assets == ["USD"])
            let bad = try await client.execute(uri: "/v1/ledger/accounts?asset=not%20a%20code", method: .get, headers: bearer("alice"))
            #expect(bad.status == .unprocessableContent)
        }
    }
}
