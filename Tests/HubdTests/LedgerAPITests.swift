import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The ledger over HTTP: assets, accounts, transfers, holds, wallets, and who may do what.
@Suite("ledger API", .timeLimit(.minutes(4)))
struct LedgerAPITests {
    static let admin = bearer("admin-1", "admin")
    static let organiser = bearer("org-1", "organiser")
    static let alice = bearer("alice", "member")
    static let bob = bearer("bob", "member")

    /// Creates `EVT` organised by org-1, wallets for alice and bob, and mints `funds` to alice.
    static func setUp(_ client: any TestClientProtocol, funds: String = "10000") async throws -> (issuance: String, alice: String, bob: String) {
        var issuance = ""
        try await client.execute(
            uri: "/v1/assets",
            method: .post,
            headers: organiser + jsonHeaders,
            body: jsonBody(["code": "EVT", "scale": 2, "name": "Event tokens"])
        ) { response in
            #expect(response.status == .created, "\(response.text)")
            let json = try response.json()
            issuance = try #require(json["issuance_account_id"] as? String)
            #expect(json["organiser_id"] as? String == uid("org-1"))
        }
        var wallets: [String] = []
        for (user, headers) in [("alice", alice), ("bob", bob)] {
            try await client.execute(uri: "/v1/users/\(uid(user))/wallets/EVT", method: .put, headers: headers) { response in
                #expect(response.status == .created, "\(response.text)")
                wallets.append(try #require(try response.json()["id"] as? String))
            }
        }
        try await client.execute(
            uri: "/v1/ledger/transfers",
            method: .post,
            headers: organiser + jsonHeaders,
            body: jsonBody(["debit_account_id": issuance, "credit_account_id": wallets[0], "amount": funds, "asset": "EVT"])
        ) { response in
            #expect(response.status == .created, "\(response.text)")
        }
        return (issuance, wallets[0], wallets[1])
    }

    static func available(_ client: any TestClientProtocol, _ account: String, as caller: HTTPFields = admin) async throws -> String? {
        var value: String?
        try await client.execute(uri: "/v1/ledger/accounts/\(account)", method: .get, headers: caller) { response in
            value = (try? response.json()["balances"] as? [String: Any])?["available"] as? String
        }
        return value
    }

    @Test("mint, pay, hold, post part, void; balances and listings agree", arguments: TestBackend.enabled)
    func moneyFlows(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (_, aliceWallet, bobWallet) = try await Self.setUp(client)
            let transferID = UUID().uuidString.lowercased()
            let pay: [String: Any] = [
                "id": transferID, "debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "2500", "asset": "EVT",
            ]
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.alice + jsonHeaders, body: jsonBody(pay)) {
                #expect($0.status == .created)
                #expect($0.headers[.location] == "/v1/ledger/transfers/\(transferID)")
            }
            // The same id again: the ledger says it exists (200), nothing moves twice.
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.alice + jsonHeaders, body: jsonBody(pay)) {
                #expect($0.status == .ok)
            }
            // A hold, posted in part: the rest goes back to alice.
            var holdID = ""
            let hold: [String: Any] = [
                "action": "hold", "debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "1000", "asset": "EVT",
                "timeout_seconds": 3600,
            ]
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.alice + jsonHeaders, body: jsonBody(hold)) {
                response in
                #expect(response.status == .created)
                holdID = try #require(try response.json()["id"] as? String)
            }
            #expect(try await Self.available(client, aliceWallet) == "6500")
            // Bob (the payee) captures 400 of it.
            try await client.execute(
                uri: "/v1/ledger/transfers/\(holdID)/post",
                method: .post,
                headers: Self.bob + jsonHeaders,
                body: jsonBody(["amount": "400"])
            ) { #expect($0.status == .created, "\($0.text)") }
            // Retrying without an id lands on the same derived id.
            try await client.execute(
                uri: "/v1/ledger/transfers/\(holdID)/post",
                method: .post,
                headers: Self.bob + jsonHeaders,
                body: jsonBody(["amount": "400"])
            ) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/ledger/transfers/\(holdID)", method: .get, headers: Self.alice) { response in
                #expect(response.object["pending_state"] as? String == "posted")
            }
            #expect(try await Self.available(client, aliceWallet) == "7100")
            #expect(try await Self.available(client, bobWallet) == "2900")

            // Listing with a cursor walks every transfer of alice's wallet once.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let query = "/v1/ledger/transfers?account_id=\(aliceWallet)&limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                try await client.execute(uri: query, method: .get, headers: Self.alice) { response in
                    let json = try response.json()
                    seen += try #require(json["data"] as? [[String: Any]]).compactMap { $0["id"] as? String }
                    cursor = json["next_cursor"] as? String
                }
            } while cursor != nil
            #expect(seen.count == 4)  // mint, pay, hold, post
            #expect(Set(seen).count == 4)

            try await client.execute(uri: "/v1/wallets/me", method: .get, headers: Self.bob) { response in
                let wallets = try #require(try response.json()["wallets"] as? [[String: Any]])
                #expect(wallets.count == 1)
                #expect((wallets[0]["recent"] as? [Any])?.count == 3)  // paid, held, captured
            }
            let report = try await LedgerVerifier.verify(hub.database)
            #expect(report.passed, "\(report)")
        }
    }

    @Test("members see and move only their own money; 404 rather than 403 for what they may not see", arguments: TestBackend.enabled)
    func authorisation(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (issuance, aliceWallet, bobWallet) = try await Self.setUp(client)
            // Bob cannot see or debit alice's wallet.
            try await client.execute(uri: "/v1/ledger/accounts/\(aliceWallet)", method: .get, headers: Self.bob) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/ledger/transfers?account_id=\(aliceWallet)", method: .get, headers: Self.bob) {
                #expect($0.status == .notFound)
            }
            let steal: [String: Any] = ["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "1", "asset": "EVT"]
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.bob + jsonHeaders, body: jsonBody(steal)) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.object["code"] as? String == "debit_account_not_found")
            }
            // Members cannot mint, create assets or open accounts that may go negative.
            let mint: [String: Any] = ["debit_account_id": issuance, "credit_account_id": bobWallet, "amount": "1", "asset": "EVT"]
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.bob + jsonHeaders, body: jsonBody(mint)) {
                #expect($0.status == .unprocessableContent)
            }
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.bob + jsonHeaders,
                body: jsonBody(["code": "BOB", "scale": 0, "name": "Bob coin"])
            ) { #expect($0.status == .forbidden) }
            try await client.execute(
                uri: "/v1/ledger/accounts",
                method: .post,
                headers: Self.bob + jsonHeaders,
                body: jsonBody(["asset": "EVT", "flags": []])
            ) { #expect($0.status == .forbidden) }
            // Another organiser sees none of org-1's asset accounts; org-1 sees alice's.
            try await client.execute(uri: "/v1/ledger/accounts/\(aliceWallet)", method: .get, headers: bearer("org-2", "organiser")) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/v1/ledger/accounts/\(aliceWallet)", method: .get, headers: Self.organiser) { #expect($0.status == .ok) }
            // An API key without ledger:write reads but does not move money.
            let readOnly = bearer("alice", "member", scopes: "ledger:read")
            try await client.execute(uri: "/v1/ledger/accounts/\(aliceWallet)", method: .get, headers: readOnly) { #expect($0.status == .ok) }
            let pay: [String: Any] = ["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "1", "asset": "EVT"]
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: readOnly + jsonHeaders, body: jsonBody(pay)) { response in
                #expect(response.status == .forbidden)
                #expect(response.object["code"] as? String == "insufficient_scope")
            }
            // Nobody: 401 with a problem body.
            try await client.execute(uri: "/v1/wallets/me", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            // Nothing moved in all of that.
            #expect(try await Self.available(client, aliceWallet) == "10000")
            #expect(try await Self.available(client, bobWallet) == "0")
        }
    }

    @Test(
        "amounts are canonical strings of minor units; anything else is a 422 naming the field",
        arguments: [
            (#"1.5"#, "number"), (#""1.5""#, "fraction"), (#""-1""#, "negative"), (#""1e3""#, "exponent"), (#""007""#, "leading zeros"),
            (#""340282366920938463463374607431768211456""#, "2^128"), (#""""#, "empty"), (#"" 1""#, "space"), (#"null"#, "null"),
        ]
    )
    func badAmounts(amount: String, why: String) async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            let (_, aliceWallet, bobWallet) = try await Self.setUp(client)
            let body = #"{"debit_account_id":"\#(aliceWallet)","credit_account_id":"\#(bobWallet)","asset":"EVT","amount":\#(amount)}"#
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: Self.alice + jsonHeaders, body: ByteBuffer(string: body)) {
                response in
                #expect(response.status == .unprocessableContent, "\(why): \(response.text)")
                let problem = try response.json()
                #expect(problem["field"] as? String == "amount", "\(why)")
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            #expect(try await Self.available(client, aliceWallet) == "10000")
        }
    }

    @Test("batches: one result each, a failing linked chain moves nothing, a malformed item refuses the whole batch", arguments: TestBackend.enabled)
    func batches(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (_, aliceWallet, bobWallet) = try await Self.setUp(client)
            func pay(_ amount: String, linked: Bool = false) -> [String: Any] {
                ["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": amount, "asset": "EVT", "linked": linked]
            }
            // A chain of two where the second overdraws: both fail; the third, alone, succeeds.
            let body = jsonBody(["transfers": [pay("100", linked: true), pay("999999"), pay("7")]])
            try await client.execute(uri: "/v1/ledger/transfers/batch", method: .post, headers: Self.alice + jsonHeaders, body: body) { response in
                #expect(response.status == .ok)
                let results = try #require(try response.json()["results"] as? [[String: Any]])
                #expect(results.map { $0["status"] as? String } == ["failed", "failed", "created"])
                #expect((results[1]["error"] as? [String: Any])?["code"] as? String == "exceeds_credits")
                #expect((results[0]["error"] as? [String: Any])?["code"] as? String == "linked_event_failed")
            }
            #expect(try await Self.available(client, bobWallet) == "7")
            // A malformed item names its index; nothing of the batch runs.
            let malformed = jsonBody(["transfers": [pay("5"), pay("5"), ["debit_account_id": aliceWallet, "asset": "EVT"]]])
            try await client.execute(uri: "/v1/ledger/transfers/batch", method: .post, headers: Self.alice + jsonHeaders, body: malformed) {
                #expect($0.status == .unprocessableContent)
                #expect($0.object["field"] as? String == "transfers[2].credit_account_id")
            }
            try await client.execute(
                uri: "/v1/ledger/transfers/batch",
                method: .post,
                headers: Self.alice + jsonHeaders,
                body: jsonBody(["transfers": [] as [Any]])
            ) { #expect($0.status == .unprocessableContent) }
            #expect(try await Self.available(client, bobWallet) == "7")
            #expect(try await Self.available(client, aliceWallet) == "9993")
        }
    }

    @Test("the largest amount, 2^128-1, round-trips through the API")
    func largestAmount() async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            let max = String(UInt128.max)
            let (_, aliceWallet, _) = try await Self.setUp(client, funds: max)
            #expect(try await Self.available(client, aliceWallet) == max)
        }
    }

    @Test("malformed JSON is 400, a wrong content type 415, an oversize body 413, an unknown route 404; all problems")
    func requestShapes() async throws {
        try await withTestHub(on: .sqlite) { hub, client in
            try await client.execute(uri: "/v1/assets", method: .post, headers: Self.admin + jsonHeaders, body: ByteBuffer(string: "{\"code\":")) {
                #expect($0.status == .badRequest)
                #expect($0.object["code"] as? String == "malformed_json")
            }
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.admin + [.contentType: "text/plain"],
                body: ByteBuffer(string: "{}")
            ) { #expect($0.status == .unsupportedMediaType) }
            let huge = ByteBuffer(string: "{\"name\":\"" + String(repeating: "x", count: 2 << 20) + "\"}")
            try await client.execute(uri: "/v1/assets", method: .post, headers: Self.admin + jsonHeaders, body: huge) {
                #expect($0.status == .contentTooLarge)
                #expect($0.headers[.contentType] == "application/problem+json")
            }
            try await client.execute(uri: "/v1/nothing-here", method: .get, headers: Self.admin) {
                #expect($0.status == .notFound)
                #expect($0.object["code"] as? String == "not_found")
            }
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.admin + jsonHeaders,
                body: ByteBuffer(string: #"{"code":"X","scale":"2","name":"x"}"#)
            ) {
                #expect($0.status == .unprocessableContent)
                #expect($0.object["field"] as? String == "scale")
            }
            // A NUL character cannot be stored whole: refused, and nothing is created.
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.admin + jsonHeaders,
                body: ByteBuffer(string: #"{"code":"NUL","scale":0,"name":"a\u0000b"}"#)
            ) {
                #expect($0.status == .unprocessableContent)
                #expect($0.object["code"] as? String == "nul_character")
            }
            try await client.execute(uri: "/v1/assets/NUL", method: .get, headers: Self.admin) { #expect($0.status == .notFound) }
            // An escaped backslash followed by "u0000" is ordinary text.
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.admin + jsonHeaders,
                body: ByteBuffer(string: #"{"code":"BSL","scale":0,"name":"a\\u0000b"}"#)
            ) {
                #expect($0.status == .created)
                #expect($0.object["name"] as? String == #"a\u0000b"#)
            }
            try await client.execute(uri: "/v1/ledger/accounts/not-a-uuid", method: .get, headers: Self.admin) {
                #expect($0.status == .unprocessableContent)
            }
        }
    }
}
