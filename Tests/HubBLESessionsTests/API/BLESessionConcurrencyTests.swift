import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

/// Races on one session: the first lock wins, and one share is paid once whatever the keys.
@Suite("BLE sessions: races", .timeLimit(.minutes(3)))
struct BLESessionConcurrencyTests {
    @Test("100 payers lock one session at once: exactly one 200, 99 × 409, one hold", arguments: TestBackend.enabled)
    func hundredLocks(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let eur = try #require(try await hub.ledger.asset(AssetCode("EUR")!))
            let payers = (0..<100).map { "payer-\($0)" }
            for payer in payers {
                try await hub.ledger.mint(1_000, of: eur, to: try await hub.ledger.wallet(of: testUserID(payer), asset: eur.code))
            }
            let id = try await api.open(amount: "500")["id"] as! String
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for payer in payers {
                    group.addTask { Int(try await api.lock(id, as: payer).status.code) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 409 }.count == 99)
            var held: UInt128 = 0
            for payer in payers { held += try await api.wallet(payer).held }
            #expect(held == 500)
            let detail = try await api.get("/sessions/\(id)", as: "payee")
            #expect((detail.object["locks"] as? [Any])?.count == 1)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("concurrent pays with one idempotency key, then with different keys: one transfer", arguments: TestBackend.enabled)
    func concurrentPays(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            for keys in [Array(repeating: "same-key", count: 12), (0..<12).map { "key-\($0)" }] {
                let id = try await api.open(amount: "1200")["id"] as! String
                #expect(try await api.lock(id, as: "bob").status == .ok)
                let before = try await api.paymentsToPayee()
                let responses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    for key in keys {
                        group.addTask {
                            let response = try await api.pay(id, as: "bob", key: key)
                            return (Int(response.status.code), problemCode(response))
                        }
                    }
                    return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
                }
                // One key: the first runs, the others see it running (409) or replay its 200.
                // Different keys: one pays, the rest find the share paid.
                let ok = responses.filter { $0.0 == 200 }.count
                #expect(ok >= 1)
                if keys.first == keys.last {
                    #expect(responses.allSatisfy { $0.0 == 200 || $0.1 == "idempotency_request_in_progress" }, "\(responses)")
                } else {
                    #expect(ok == 1, "\(responses)")
                    #expect(responses.filter { $0.1 == "share_already_paid" }.count == keys.count - 1, "\(responses)")
                }
                #expect(try await api.paymentsToPayee() == before + 1)
            }
            #expect(try await api.wallet("bob") == (7_600, 0))
            #expect(try await api.wallet("payee") == (2_400, 0))
            try await hub.ledger.expectVerified()
        }
    }

    @Test("a replayed pay answers the first response without paying again", arguments: TestBackend.enabled)
    func replay(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let id = try await api.open(amount: "300")["id"] as! String
            #expect(try await api.lock(id, as: "carol").status == .ok)
            let first = try await api.pay(id, as: "carol", key: "pay-once")
            let second = try await api.pay(id, as: "carol", key: "pay-once")
            #expect(first.status == .ok)
            #expect(second.status == .ok)
            #expect(second.headers[.init("Idempotency-Replayed")!] == "true")
            #expect(second.text == first.text)
            #expect(try await api.paymentsToPayee() == 1)
            try await hub.ledger.expectVerified()
        }
    }
}
