import Foundation
import HTTPTypes
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

@testable import HubBLESessions
@testable import HubKernel

/// Locks and pays that wait for the same commit run as one batch (one read of their sessions,
/// locks and ledger rows): members on one session still see each other's steps in turn.
@Suite("BLE sessions: batched steps", .timeLimit(.minutes(3)))
struct BLESessionBatchTests {
    /// Runs `requests` as one writer group and returns their statuses and problem codes in order.
    static func inOneGroup(_ hub: Hub, _ requests: [@Sendable () async throws -> TestResponse]) async throws -> [(Int, String?)] {
        try await inOneWriterGroup(hub.ledger, requests).map { (Int($0.status.code), problemCode($0)) }
    }

    @Test("a group's locks on a split session take one share each, the extra is busy; its pays pay each once", arguments: TestBackend.enabled)
    func locksAndPaysInOneBatch(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let eur = try #require(try await hub.ledger.asset(AssetCode("EUR")!))
            try await hub.ledger.mint(10_000, of: eur, to: try await hub.ledger.wallet(of: testUserID("dan"), asset: eur.code))
            let split = try await api.open(amount: "3000", extra: ["split": ["mode": "equal", "payers": 3]])["id"] as! String
            let single = try await api.open(amount: "2500")["id"] as! String

            let locks = try await Self.inOneGroup(
                hub,
                [
                    { try await api.lock(split, as: "alice") },
                    { try await api.lock(split, as: "bob") },
                    { try await api.lock(single, as: "carol") },
                    { try await api.lock(split, as: "payee") },
                    { try await api.lock(split, as: "carol") },
                    { try await api.lock(split, as: "dan") },
                    { try await api.lock(split, as: "alice") },  // again: the same lock
                ]
            )
            #expect(locks.map(\.0) == [200, 200, 200, 422, 200, 409, 200], "\(locks)")
            #expect(locks[3].1 == "cannot_pay_self")
            #expect(locks[5].1 == "session_locked")
            let detail = try await api.get("/sessions/\(split)", as: "payee")
            let shares = (detail.object["locks"] as? [[String: Any]] ?? []).compactMap { $0["share"] as? Int }
            #expect(shares.sorted() == [0, 1, 2])
            #expect(try await api.session(split)["status"] as? String == "locked")
            // The batch wrote the split session once, in the state its last lock left.
            #expect(try await api.session(split)["held_shares"] as? Int == 3)
            for payer in ["alice", "bob"] { #expect(try await api.wallet(payer) == (9_000, 1_000)) }
            #expect(try await api.wallet("carol") == (6_500, 3_500))

            let pays = try await Self.inOneGroup(
                hub,
                [
                    { try await api.pay(split, as: "alice") },
                    { try await api.pay(split, as: "dan") },
                    { try await api.pay(single, as: "carol") },
                    { try await api.pay(split, as: "bob") },
                    { try await api.pay(split, as: "carol") },
                    { try await api.pay(split, as: "alice") },  // again, with another key: paid already
                ]
            )
            #expect(pays.map(\.0) == [200, 409, 200, 200, 200, 409], "\(pays)")
            #expect(pays[1].1 == "session_not_locked")
            #expect(pays[5].1 == "share_already_paid")
            #expect(try await api.session(split)["status"] as? String == "paid")
            #expect(try await api.session(single)["status"] as? String == "paid")
            let paid = try await api.session(split)
            #expect(paid["paid_shares"] as? Int == 3 && paid["held_shares"] as? Int == 0 && paid["ended_at"] is String)
            let paidLocks = try await api.get("/sessions/\(split)", as: "payee").object["locks"] as? [[String: Any]] ?? []
            #expect(paidLocks.map { $0["state"] as? String } == ["paid", "paid", "paid"])
            #expect(paidLocks.allSatisfy { $0["resolved_at"] is String })
            #expect(try await api.wallet("payee") == (5_500, 0))
            #expect(try await api.wallet("carol") == (6_500, 0))
            #expect(try await api.paymentsToPayee() == 4)
            let types = try await api.eventTypes()
            #expect(types.filter { $0 == "ble.session.locked" }.count == 4)
            #expect(types.filter { $0 == "ble.session.paid" }.count == 4)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("opens in one group get one EID each, recorded at once; an EID taken or drawn twice is not recorded", arguments: TestBackend.enabled)
    func opensInOneBatch(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let opened = try await Self.inOneGroup(hub, (0..<5).map { _ in { try await api.post("/sessions", as: "payee", ["amount": "100"]) } })
            #expect(opened.map(\.0) == Array(repeating: 201, count: 5), "\(opened)")
            let listed = try await api.get("/sessions", as: "payee").object["data"] as? [[String: Any]] ?? []
            let sessions = listed.map { (id: $0["id"] as! String, eid: $0["eid"] as! String) }
            try #require(sessions.count == 5)
            #expect(Set(sessions.map(\.eid)).count == 5)
            for session in sessions {
                let resolved = try await api.resolve(eid: session.eid)
                #expect(resolved.object["session_id"] as? String == session.id, "\(resolved.text)")
            }

            // The statement itself: a stored EID and a second draw of one EID are left out.
            let (taken, fresh, other) = (EphemeralID(hex: sessions[0].eid)!, EphemeralID.random(), EphemeralID.random())
            let recorded = try await hub.ledger.write(as: .rail(BLESessionsPlugin.id, eventTypes: SessionEvents.all)) { unit in
                try SessionStore.insertEIDs(
                    [(taken, sessions[1].id), (fresh, sessions[1].id), (fresh, sessions[2].id), (other, sessions[2].id)],
                    at: unit.now,
                    on: unit.connection
                )
            }
            #expect(recorded == [fresh: sessions[1].id, other: sessions[2].id])
        }
    }
}
