import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /v1/ledger/stats`, the data of the console's overview charts, on both backends.
@Suite("ledger stats API", .timeLimit(.minutes(4)))
struct LedgerStatsAPITests {
    static let admin = LedgerAPITests.admin

    /// Totals per rail over every bucket of the answer (the test may straddle a bucket boundary).
    static func totals(_ stats: [String: Any]) throws -> [String: (count: Int, volume: String)] {
        let rows = try #require(stats["transfers"] as? [[String: Any]])
        var totals: [String: (count: Int, volume: UInt128)] = [:]
        for row in rows {
            #expect(row["asset"] as? String == "EVT")
            let rail = row["rail"] as? String ?? "-"
            let count = try #require(row["count"] as? Int)
            let text = try #require(row["volume"] as? String)
            let volume = try #require(UInt128(text))
            let previous = totals[rail] ?? (0, 0)
            totals[rail] = (previous.count + count, previous.volume + volume)
        }
        return totals.mapValues { ($0.count, String($0.volume)) }
    }

    @Test("transfers that moved money are counted and summed per rail; holds and voids are not", arguments: TestBackend.enabled)
    func countsAndVolumes(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { _, client in
            let (_, alice, bob) = try await LedgerAPITests.setUp(client)  // mints 10000 to alice, no ref
            func transfer(_ body: [String: Any]) async throws -> String {
                var id = ""
                let headers = LedgerAPITests.alice + jsonHeaders
                try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: headers, body: jsonBody(body)) { response in
                    #expect(response.status == .created, "\(response.text)")
                    id = try #require(try response.json()["id"] as? String)
                }
                return id
            }
            let payment: [String: Any] = ["debit_account_id": alice, "credit_account_id": bob, "asset": "EVT"]
            _ = try await transfer(payment.merging(["amount": "250", "ref": ["rail": "tip-jar", "type": "jar", "id": "1"]]) { $1 })
            _ = try await transfer(payment.merging(["amount": "50", "ref": ["rail": "tip-jar", "type": "jar", "id": "2"]]) { $1 })
            let hold = try await transfer(payment.merging(["amount": "300", "action": "hold", "timeout_seconds": 0]) { $1 })
            let voided = try await transfer(payment.merging(["amount": "70", "action": "hold", "timeout_seconds": 0]) { $1 })
            try await client.execute(
                uri: "/v1/ledger/transfers/\(hold)/post",
                method: .post,
                headers: LedgerAPITests.alice + jsonHeaders,
                body: jsonBody(["amount": "100"])
            ) { response in
                #expect(response.status == .created, "\(response.text)")
            }
            try await client.execute(uri: "/v1/ledger/transfers/\(voided)/void", method: .post, headers: LedgerAPITests.alice) { response in
                #expect(response.status == .created, "\(response.text)")
            }

            try await client.execute(uri: "/v1/ledger/stats?bucket=hour", method: .get, headers: Self.admin) { response in
                #expect(response.status == .ok, "\(response.text)")
                let stats = try response.json()
                #expect(stats["bucket"] as? String == "hour")
                let totals = try Self.totals(stats)
                // No ref: the mint (10000) and the posted part of the hold (100).
                #expect(totals["-"]?.count == 2 && totals["-"]?.volume == "10100", "\(totals)")
                #expect(totals["tip-jar"]?.count == 2 && totals["tip-jar"]?.volume == "300", "\(totals)")
                #expect(totals.count == 2)
                // Every bucket starts on the hour.
                for row in try #require(stats["transfers"] as? [[String: Any]]) {
                    #expect((row["start"] as? String)?.hasSuffix(":00:00.000Z") == true, "\(row)")
                }
                // The event rate counts the same events as the log.
                let events = try #require(stats["events"] as? [[String: Any]])
                let counted = events.reduce(0) { $0 + (($1["count"] as? Int) ?? 0) }
                #expect(counted > 0)
                let since = try #require(stats["since"] as? String)
                let until = try #require(stats["until"] as? String)
                #expect(since < until)
                #expect(since.hasSuffix(":00:00.000Z") && until.hasSuffix(":00:00.000Z"))
            }
            var logged = 0
            try await client.execute(uri: "/v1/events?limit=1000", method: .get, headers: Self.admin) { response in
                logged = (try response.json()["data"] as? [Any])?.count ?? -1
            }
            try await client.execute(uri: "/v1/ledger/stats?bucket=day", method: .get, headers: Self.admin) { response in
                let events = try #require(try response.json()["events"] as? [[String: Any]])
                #expect(events.reduce(0) { $0 + (($1["count"] as? Int) ?? 0) } == logged)
                #expect(try Self.totals(try response.json())["tip-jar"]?.volume == "300")
            }
            // A window that holds none of it.
            try await client.execute(
                uri: "/v1/ledger/stats?bucket=day&since=2001-01-01T00:00:00Z&until=2001-01-31T00:00:00Z",
                method: .get,
                headers: Self.admin
            ) { response in
                #expect(response.status == .ok, "\(response.text)")
                let stats = try response.json()
                #expect((stats["transfers"] as? [Any])?.isEmpty == true)
                #expect((stats["events"] as? [Any])?.isEmpty == true)
                #expect(stats["since"] as? String == "2001-01-01T00:00:00.000Z")
            }
        }
    }

    @Test("only admins; bad buckets, times and windows are 422 naming the parameter", arguments: TestBackend.enabled)
    func refusals(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { _, client in
            try await client.execute(uri: "/v1/ledger/stats", method: .get, headers: LedgerAPITests.organiser) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/v1/ledger/stats", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            let cases: [(String, String, String)] = [
                ("bucket=week", "bucket", "invalid_field"),
                ("since=yesterday", "since", "invalid_field"),
                ("since=2026-11-21T10:00:00+01:00", "since", "invalid_field"),
                ("until=2026-13-01T00:00:00Z", "until", "invalid_field"),
                ("since=2026-11-21T10:00:00Z&until=2026-11-21T09:00:00Z", "since", "invalid_field"),
                ("bucket=minute&since=2020-01-01T00:00:00Z&until=2026-01-01T00:00:00Z", "since", "window_too_wide"),
                ("until=9999-01-01T00:00:00Z", "until", "invalid_field"),
            ]
            for (query, field, code) in cases {
                try await client.execute(uri: "/v1/ledger/stats?\(query)", method: .get, headers: Self.admin) { response in
                    #expect(response.status == .unprocessableContent, "\(query): \(response.text)")
                    let problem = response.object
                    #expect(problem["field"] as? String == field, "\(query): \(response.text)")
                    #expect(problem["code"] as? String == code, "\(query): \(response.text)")
                }
            }
        }
    }
}
