import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

/// What time does to sessions, on a manual clock: lock expiry (during a pay, and by the
/// sweeper), session expiry, and EID rotation with its grace period.
@Suite("BLE sessions: time", .timeLimit(.minutes(3)))
struct BLESessionTimeTests {
    @Test("a lock that lapses before the pay: 410, the hold released, the session open again", arguments: TestBackend.enabled)
    func lockExpiresDuringPay(backend: TestBackend) async throws {
        let clock = ManualClock()
        // The sweeper ticks rarely here, so the pay is the one that finds the lapsed lock.
        try await withBLEHub(
            on: backend,
            config: #"{"default_asset": "EUR", "sweep_interval_ms": 60000, "eid_rotation_seconds": 0}"#,
            clock: clock.ledgerClock
        ) { hub, api in
            let id = try await api.open(amount: "900")["id"] as! String
            #expect(try await api.lock(id, as: "alice").status == .ok)
            clock.advance(seconds: 61)
            let late = try await api.pay(id, as: "alice")
            #expect(late.status == .gone)
            #expect(problemCode(late) == "lock_expired")
            #expect(try await api.wallet("alice") == (10_000, 0))
            #expect(try await api.wallet("payee") == (0, 0))
            #expect(try await api.session(id)["status"] as? String == "advertising")
            // The share is free again: another payer takes it and pays.
            #expect(try await api.lock(id, as: "bob").status == .ok)
            #expect(try await api.pay(id, as: "bob").status == .ok)
            #expect(
                try await api.eventTypes() == [
                    "ble.session.created", "ble.session.locked", "ble.session.lock_expired", "ble.session.locked", "ble.session.paid",
                ]
            )
            try await hub.ledger.expectVerified()
        }
    }

    @Test("the sweeper expires lapsed locks and then the session (TIMEOUT), releasing holds", arguments: TestBackend.enabled)
    func sweeper(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withBLEHub(on: backend, clock: clock.ledgerClock) { hub, api in
            let session = try await api.open(amount: "900", extra: ["ttl_seconds": 120])
            let id = session["id"] as! String
            #expect(try await api.lock(id, as: "alice").status == .ok)
            clock.advance(seconds: 61)
            try await eventually("the lapsed lock is expired") { try await api.session(id)["status"] as? String == "advertising" }
            #expect(try await api.wallet("alice") == (10_000, 0))
            #expect(try await api.lock(id, as: "bob").status == .ok)
            clock.advance(seconds: 60)
            try await eventually("the session is expired") { try await api.session(id)["status"] as? String == "expired" }
            #expect(try await api.wallet("bob") == (10_000, 0))
            #expect(try await api.resolve(eid: session["eid"] as! String).status == .gone)
            #expect(problemCode(try await api.lock(id, as: "carol")) == "session_expired")
            let detail = try await api.get("/sessions/\(id)", as: "payee")
            #expect((detail.object["locks"] as? [[String: Any]])?.map { $0["state"] as? String } == ["expired", "released"])
            #expect(
                try await api.eventTypes() == [
                    "ble.session.created", "ble.session.locked", "ble.session.lock_expired", "ble.session.locked", "ble.session.expired",
                ]
            )
            try await hub.ledger.expectVerified()
        }
    }

    @Test("rotation: a new EID at once, the old one resolves for the grace period only", arguments: TestBackend.enabled)
    func rotation(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withBLEHub(on: backend, clock: clock.ledgerClock) { hub, api in
            let session = try await api.open(amount: "400")
            let id = session["id"] as! String
            let old = session["eid"] as! String
            #expect(try await api.post("/sessions/\(id)/rotate", as: "alice").status == .notFound)
            let rotated = try await api.post("/sessions/\(id)/rotate", as: "payee")
            #expect(rotated.status == .ok)
            let new = try #require(rotated.object["eid"] as? String)
            #expect(new != old)
            #expect((rotated.object["advertisement"] as? [String: Any])?["local_name"] as? String == "GOTCHU" + new)
            #expect(try await api.resolve(eid: old).object["session_id"] as? String == id)
            clock.advance(seconds: 11)
            #expect(try await api.resolve(eid: old).status == .notFound)
            #expect(try await api.resolve(eid: new).object["session_id"] as? String == id)
            #expect(try await api.eventTypes() == ["ble.session.created", "ble.session.eid_rotated"])
            try await hub.ledger.expectVerified()
        }
    }

    @Test("automatic rotation every configured interval", arguments: TestBackend.enabled)
    func automaticRotation(backend: TestBackend) async throws {
        let clock = ManualClock()
        let config = #"{"default_asset": "EUR", "sweep_interval_ms": 20, "eid_rotation_seconds": 30, "eid_grace_seconds": 5}"#
        try await withBLEHub(on: backend, config: config, clock: clock.ledgerClock) { _, api in
            let session = try await api.open(amount: "400")
            let id = session["id"] as! String
            let first = session["eid"] as! String
            clock.advance(seconds: 31)
            try await eventually("the EID rotated") { try await api.session(id)["eid"] as? String != first }
            let second = try await api.session(id)["eid"] as! String
            #expect(try await api.resolve(eid: second).status == .ok)
            clock.advance(seconds: 6)
            #expect(try await api.resolve(eid: first).status == .notFound)
            #expect(try await api.eventTypes() == ["ble.session.created", "ble.session.eid_rotated"])
        }
    }
}
