import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

/// The BLE sessions rail over HTTP on every enabled backend: the whole flow, every refusal, and
/// the ledger's invariants after each.
@Suite("BLE sessions: flow", .timeLimit(.minutes(3)))
struct BLESessionFlowTests {
    @Test("create → resolve (EID and raw advertisement) → lock (a hold) → pay (the hold posted)", arguments: TestBackend.enabled)
    func wholeFlow(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let created = try await api.open(amount: "2500")
            let id = try #require(created["id"] as? String)
            let eid = try #require(created["eid"] as? String)
            // Time-ordered (version 7) UUIDs, so new sessions land at the right edge of the index.
            #expect(RecordID(id)?.description == id)
            #expect(Array(id)[14] == "7")
            #expect(created["status"] as? String == "advertising")
            #expect(created["asset"] as? String == "EUR")
            #expect(eid.count == 10)
            let advertisement = try #require(created["advertisement"] as? [String: Any])
            #expect(advertisement["service_uuid"] as? String == "0000FEED-0000-1000-8000-00805F9B34FB")
            #expect(advertisement["data"] as? String == "0201060303edfe0816edfe" + eid)
            #expect(advertisement["local_name"] as? String == "GOTCHU" + eid)

            let byEID = try await api.resolve(eid: eid)
            #expect(byEID.status == .ok)
            #expect(byEID.object["session_id"] as? String == id)
            #expect(byEID.object["amount"] as? String == "2500")
            #expect(byEID.object["payee_display_name"] as? String == "Payee")
            #expect(byEID.object["payee"] == nil)  // nothing about the payee beyond the name
            let scanned = try await api.post("/resolve", as: nil, ["advertisement": (advertisement["local_name_data"] as! String) + "000000"])
            #expect(scanned.status == .ok, "\(scanned.text)")
            #expect(scanned.object["session_id"] as? String == id)

            let locked = try await api.lock(id, as: "alice")
            #expect(locked.status == .ok, "\(locked.text)")
            let lock = try #require(locked.object["lock"] as? [String: Any])
            #expect(lock["state"] as? String == "held")
            #expect(lock["amount"] as? String == "2500")
            #expect(Array(try #require(lock["id"] as? String))[14] == "7")
            #expect((locked.object["session"] as? [String: Any])?["status"] as? String == "locked")
            #expect(try await api.wallet("alice") == (7_500, 2_500))
            let again = try await api.lock(id, as: "alice")
            #expect((again.object["lock"] as? [String: Any])?["id"] as? String == lock["id"] as? String)

            let paid = try await api.pay(id, as: "alice")
            #expect(paid.status == .ok, "\(paid.text)")
            #expect((paid.object["session"] as? [String: Any])?["status"] as? String == "paid")
            #expect((paid.object["lock"] as? [String: Any])?["payment_transfer_id"] as? String != nil)
            #expect(try await api.wallet("alice") == (7_500, 0))
            #expect(try await api.wallet("payee") == (2_500, 0))
            #expect(try await api.paymentsToPayee() == 1)
            #expect(try await api.eventTypes() == ["ble.session.created", "ble.session.locked", "ble.session.paid"])
            // A lock's and a pay's event carries exactly what the step answered.
            let events = try await api.events()
            #expect(NSDictionary(dictionary: try #require(events[1]["data"] as? [String: Any])).isEqual(to: locked.object))
            #expect(NSDictionary(dictionary: try #require(events[2]["data"] as? [String: Any])).isEqual(to: paid.object))

            // The payer sees the session and their own lock; a stranger sees nothing.
            let asPayer = try await api.get("/sessions/\(id)", as: "alice")
            #expect(asPayer.status == .ok)
            #expect((asPayer.object["locks"] as? [Any])?.count == 1)
            #expect((asPayer.object["session"] as? [String: Any])?["advertisement"] == nil)
            #expect(try await api.get("/sessions/\(id)", as: "mallory").status == .notFound)
            // A paid session still resolves, saying so; it can be neither locked nor paid again.
            #expect(try await api.resolve(eid: eid).object["status"] as? String == "paid")
            #expect(problemCode(try await api.lock(id, as: "bob")) == "session_paid")
            #expect(problemCode(try await api.pay(id, as: "alice")) == "share_already_paid")
            let list = try await api.get("/sessions?status=paid", as: "payee")
            #expect((list.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            try await hub.ledger.expectVerified()
        }
    }

    @Test("bad requests get a clear problem and change nothing", arguments: TestBackend.enabled)
    func refusals(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let session = try await api.open(amount: "2500")
            let id = session["id"] as! String

            #expect(try await api.post("/sessions", as: nil, ["amount": "100"]).status == .unauthorized)
            for (body, field) in [
                (["amount": "0"], "amount"), (["amount": 100], "amount"), (["amount": "1.5"], "amount"),
                (["amount": "100", "asset": "XYZ"], "asset"), (["amount": "100", "ttl_seconds": 5], "ttl_seconds"),
                (["amount": "100", "split": ["mode": "equal", "payers": 1]], "split.payers"),
                (["amount": "2", "split": ["mode": "equal", "payers": 3]], "amount"),
                (["amount": "100", "split": ["mode": "thirds", "payers": 3]], "split.mode"),
            ] as [([String: Any], String)] {
                let response = try await api.post("/sessions", as: "payee", body)
                #expect(response.status == .unprocessableContent, "\(body): \(response.text)")
                #expect(response.object["field"] as? String == field, "\(body): \(response.text)")
            }

            #expect(try await api.resolve(eid: "0000000000").status == .notFound)
            #expect(problemCode(try await api.resolve(eid: "xyz")) == "invalid_field")
            let garbage = try await api.post("/resolve", as: nil, ["advertisement": "0201060303edfe0816edfe01"])
            #expect(problemCode(garbage) == "invalid_advertisement")
            #expect((garbage.object["detail"] as? String)?.contains("truncated") == true)
            #expect(try await api.post("/resolve", as: nil, [String: Any]()).status == .unprocessableContent)

            #expect(problemCode(try await api.lock(id, as: "payee")) == "cannot_pay_self")
            #expect(problemCode(try await api.lock(id, as: "nobody")) == "wallet_not_found")
            #expect(problemCode(try await api.pay(id, as: "alice")) == "session_not_locked")
            #expect(try await api.lock("no-such-session", as: "alice").status == .notFound)
            let noKey = try await api.post("/sessions/\(id)/pay", as: "alice")
            #expect(noKey.status == .badRequest)
            #expect(problemCode(noKey) == "idempotency_key_required")

            let large = try await api.open(amount: "10001")
            let poor = try await api.lock(large["id"] as! String, as: "alice")
            #expect(poor.status == .unprocessableContent)
            #expect(problemCode(poor) == "insufficient_funds")
            #expect(try await api.session(large["id"] as! String)["status"] as? String == "advertising")

            #expect(try await api.wallet("alice") == (10_000, 0))
            #expect(try await api.session(id)["status"] as? String == "advertising")
            #expect(try await api.eventTypes() == ["ble.session.created", "ble.session.created"])
            try await hub.ledger.expectVerified()
        }
    }

    @Test("an equal split: exact shares, partly paid, locked when every free share is held, paid when all are", arguments: TestBackend.enabled)
    func split(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let eur = try #require(try await hub.ledger.asset(AssetCode("EUR")!))
            try await hub.ledger.mint(10_000, of: eur, to: try await hub.ledger.wallet(of: testUserID("dave"), asset: eur.code))
            let session = try await api.open(amount: "1000", extra: ["split": ["mode": "equal", "payers": 3]])
            let id = session["id"] as! String
            #expect(try await api.resolve(eid: session["eid"] as! String).object["share_amount"] as? String == "334")

            #expect(try await api.lock(id, as: "alice").status == .ok)
            #expect(try await api.pay(id, as: "alice").status == .ok)
            #expect(try await api.session(id)["status"] as? String == "partially_paid")
            #expect(try await api.resolve(eid: session["eid"] as! String).object["share_amount"] as? String == "333")
            #expect(problemCode(try await api.lock(id, as: "alice")) == "share_already_paid")

            #expect(try await api.lock(id, as: "bob").status == .ok)
            #expect(try await api.lock(id, as: "carol").status == .ok)
            #expect(try await api.session(id)["status"] as? String == "locked")
            #expect(problemCode(try await api.lock(id, as: "dave")) == "session_locked")

            #expect(try await api.pay(id, as: "bob").status == .ok)
            #expect(try await api.pay(id, as: "carol").status == .ok)
            #expect(try await api.session(id)["status"] as? String == "paid")
            #expect(try await api.wallet("alice").available == 9_666)
            #expect(try await api.wallet("bob").available == 9_667)
            #expect(try await api.wallet("carol").available == 9_667)
            #expect(try await api.wallet("payee") == (1_000, 0))
            #expect(try await api.paymentsToPayee() == 3)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("the payee cancels: held shares are released, the session is gone for payers", arguments: TestBackend.enabled)
    func cancel(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let session = try await api.open(amount: "700")
            let id = session["id"] as! String
            #expect(try await api.lock(id, as: "alice").status == .ok)
            #expect(try await api.wallet("alice") == (9_300, 700))
            #expect(try await api.post("/sessions/\(id)/cancel", as: "alice").status == .notFound)

            let cancelled = try await api.post("/sessions/\(id)/cancel", as: "payee")
            #expect(cancelled.status == .ok)
            #expect(cancelled.object["status"] as? String == "cancelled")
            #expect(try await api.wallet("alice") == (10_000, 0))
            #expect(try await api.resolve(eid: session["eid"] as! String).status == .gone)
            #expect(problemCode(try await api.pay(id, as: "alice")) == "session_cancelled")
            #expect(problemCode(try await api.post("/sessions/\(id)/cancel", as: "payee")) == "session_cancelled")
            #expect(try await api.eventTypes() == ["ble.session.created", "ble.session.locked", "ble.session.cancelled"])
            try await hub.ledger.expectVerified()
        }
    }

    @Test("the rail reports itself with its console panel: a sessions list backed by its own endpoint", arguments: TestBackend.enabled)
    func pluginEntry(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { _, api in
            let response = try await api.client.execute(uri: "/v1/plugins", method: .get, headers: bearer("admin-1", "admin"))
            let items = try #require(try response.json()["data"] as? [[String: Any]])
            let entry = try #require(items.first { $0["id"] as? String == BLESessionsPlugin.id })
            #expect(entry["status"] as? String == "running")
            let panel = try #require(entry["admin_panel"] as? [String: Any])
            let list = try #require((panel["lists"] as? [[String: Any]])?.first)
            #expect(list["path"] as? String == "/sessions")
            #expect((list["detail"] as? [String: Any])?["path"] as? String == "/sessions/{id}")
            // What the panel points at answers in the shape it declares: a page of sessions.
            _ = try await api.open(amount: "100")
            let page = try await api.get("/sessions", as: "payee")
            #expect((page.object["data"] as? [[String: Any]])?.first?["payee"] as? [String: Any] != nil)
        }
    }
}
