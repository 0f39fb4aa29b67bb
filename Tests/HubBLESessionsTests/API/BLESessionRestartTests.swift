import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

/// Sessions live in the database, not in the process: a hub stopped with a session locked and
/// another started on the same data carries on (the payer pays; the sweeper of the new process
/// expires what lapsed while none ran).
@Suite("BLE sessions: restart", .timeLimit(.minutes(3)))
struct BLESessionRestartTests {
    static let entry = bleEntry()

    @Test(
        "a session locked before a restart is paid after it; one that lapsed meanwhile is expired by the new sweeper",
        arguments: TestBackend.enabled
    )
    func restart(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withDatabase(on: backend) { database in
            let ids = try await withTestHub(
                database: database,
                builtIn: [BLESessionsPlugin.self],
                plugins: [Self.entry],
                clock: clock.ledgerClock
            ) { hub, client in
                let eur = try await hub.ledger.makeAsset("EUR")
                try await hub.ledger.mint(10_000, of: eur, to: try await hub.ledger.wallet(of: testUserID("alice"), asset: eur.code))
                let api = BLEAPI(client: client, ledger: hub.ledger)
                let paidLater = try await api.open(amount: "600", extra: ["ttl_seconds": 600])["id"] as! String
                let lapsing = try await api.open(amount: "400", extra: ["ttl_seconds": 30])["id"] as! String
                #expect(try await api.lock(paidLater, as: "alice").status == .ok)
                #expect(try await api.lock(lapsing, as: "alice").status == .ok)
                #expect(try await api.wallet("alice") == (9_000, 1_000))
                return (paidLater, lapsing)
            }
            // No hub runs while the clock moves past the second session's end.
            clock.advance(seconds: 31)
            try await withTestHub(
                database: database,
                builtIn: [BLESessionsPlugin.self],
                plugins: [Self.entry],
                clock: clock.ledgerClock
            ) { hub, client in
                let api = BLEAPI(client: client, ledger: hub.ledger)
                try await eventually("the lapsed session is expired") { try await api.session(ids.1)["status"] as? String == "expired" }
                #expect(try await api.pay(ids.0, as: "alice").status == .ok)
                #expect(try await api.session(ids.0)["status"] as? String == "paid")
                #expect(try await api.wallet("alice") == (9_400, 0))
                #expect(try await api.wallet("payee") == (600, 0))
                try await hub.ledger.expectVerified()
            }
        }
    }
}
