import Foundation
import HTTPTypes
import HubBLESessions
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

/// Two hubs on one database, as two `hubd` processes sharing PostgreSQL (or one SQLite file) would
/// run: each has its own writer connection, so only the database's row locks (and SQLite's write
/// lock) keep "first lock wins" and "one payment per share".
@Suite("BLE sessions: two hubs, one database", .timeLimit(.minutes(3)))
struct BLESessionTwoHubsTests {
    static let entry = bleEntry(#"{"default_asset": "EUR", "sweep_interval_ms": 50, "eid_rotation_seconds": 0}"#)

    @Test("40 payers split across two hubs lock one session at once: one wins; two pays across the hubs pay once", arguments: TestBackend.enabled)
    func racesAcrossHubs(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { first in
            let second = try await Database.open(first.url)
            do {
                try await Self.race(first, second)
            } catch {
                await second.close()
                throw error
            }
            await second.close()
        }
    }

    private static func race(_ first: Database, _ second: Database) async throws {
        let payers = (0..<40).map { "payer-\($0)" }
        let sessionID = try await withTestHub(database: first, builtIn: [BLESessionsPlugin.self], plugins: [Self.entry]) { hub, client in
            let eur = try await hub.ledger.makeAsset("EUR")
            for payer in payers {
                try await hub.ledger.mint(1_000, of: eur, to: try await hub.ledger.wallet(of: testUserID(payer), asset: eur.code))
            }
            return try await BLEAPI(client: client, ledger: hub.ledger).open(amount: "700")["id"] as! String
        }
        try await withTestHub(database: first, builtIn: [BLESessionsPlugin.self], plugins: [Self.entry]) { hubA, clientA in
            try await withTestHub(database: second, builtIn: [BLESessionsPlugin.self], plugins: [Self.entry]) { hubB, clientB in
                let apis = [BLEAPI(client: clientA, ledger: hubA.ledger), BLEAPI(client: clientB, ledger: hubB.ledger)]
                let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                    for (index, payer) in payers.enumerated() {
                        group.addTask {
                            try await apis[index % 2].lock(sessionID, as: payer).status == .ok ? payer : nil
                        }
                    }
                    return try await group.reduce(into: [String]()) { if let winner = $1 { $0.append(winner) } }
                }
                #expect(winners.count == 1, "\(winners)")
                let winner = try #require(winners.first)
                // The winner's pay arrives at both hubs at once, under different keys.
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for api in apis { group.addTask { Int(try await api.pay(sessionID, as: winner).status.code) } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.sorted() == [200, 409], "\(statuses)")
                #expect(try await apis[0].paymentsToPayee() == 1)
                #expect(try await apis[1].wallet("payee") == (700, 0))
                try await hubA.ledger.expectVerified()
            }
        }
    }
}
