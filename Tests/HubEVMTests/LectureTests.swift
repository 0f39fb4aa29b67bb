import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubEVM
@testable import HubLocalChain

extension EVMRailTests {
    /// Paid courses on the hub's own chain over HTTP: the `Lectures` contract holds the rules, the
    /// rail's index follows it after every confirmed operation.
    @Suite("EVM rail: lectures on the hub's chain", .timeLimit(.minutes(3)))
    struct LectureTests {
        static let coin = ListingTests.coin
        static let chainID = ListingTests.chainID

        static func operationCount(_ hub: Hub) async throws -> Int64? {
            try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations")?.int("n") }
        }

        /// Creates a lecture for `teacher` and waits for it; returns its id.
        static func create(
            _ client: any TestClientProtocol,
            as teacher: String,
            capacity: Int,
            endTime: UInt64,
            minAttendance: Int = 1
        ) async throws -> String {
            let created = try await ListingTests.run(
                client,
                "/lectures",
                as: teacher,
                [
                    "title": "Pottery for beginners", "kind": "workshop", "target": "adults", "place": "Hall B", "period": "spring",
                    "curriculum": ["clay", "wheel", "glaze"], "price": coin, "capacity": capacity, "sessions": 2,
                    "min_attendance": minAttendance, "end_time": endTime,
                ]
            )
            #expect(created["state"] as? String == "confirmed", "\(created)")
            return try #require((created["result"] as? [String: String])?["lecture_id"])
        }

        @Test(
            "a course: seats sold up to capacity, attendance, one evaluation each, settlement once with the fee and incentive, earnings withdrawn; a cancelled re-run refunded",
            arguments: TestBackend.enabled
        )
        func course(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let teacher = try #require(try await client.evm(.post, "/accounts", as: "tina", [:]).object["address"] as? String)
                let bob = try await ListingTests.fund(client, "bob", coins: 3)
                let carol = try await ListingTests.fund(client, "carol", coins: 3)
                _ = try await ListingTests.fund(client, "dave", coins: 3)

                // Mistakes in the terms are refused before anything is sent.
                let before = try await Self.operationCount(hub)
                let now = UInt64(Date().timeIntervalSince1970)
                let base: [String: Any] = [
                    "title": "T", "kind": "k", "price": Self.coin, "capacity": 2, "sessions": 2, "min_attendance": 1, "end_time": now + 60,
                ]
                for (field, value) in [
                    ("sessions", 0 as Any), ("min_attendance", 3), ("capacity", 0), ("end_time", now - 1), ("price", "0"), ("title", " "),
                ] {
                    var body = base
                    body[field] = value
                    let refused = try await client.evm(.post, "/lectures", as: "tina", body)
                    #expect(refused.status == .unprocessableContent, "\(field): \(refused.text)")
                    #expect(refused.object["field"] as? String == field, "\(field): \(refused.text)")
                }
                #expect(try await Self.operationCount(hub) == before, "nothing was sent")

                let end = UInt64(Date().timeIntervalSince1970) + 12
                let lectureID = try await Self.create(client, as: "tina", capacity: 2, endTime: end)
                let path = "/lectures/hub/\(lectureID)"
                #expect(try await ListingTests.run(client, path + "/purchase", as: "bob")["state"] as? String == "confirmed")
                let twice = try await client.evm(.post, path + "/purchase", as: "bob", [:])
                #expect(twice.object["code"] as? String == "call_reverted", "one seat per run: \(twice.text)")
                let teacherBuys = try await client.evm(.post, path + "/purchase", as: "tina", [:])
                #expect(teacherBuys.object["code"] as? String == "call_reverted")
                // A retry with the same Idempotency-Key answers the same operation and sends nothing more.
                let keyed = bearer("carol") + jsonHeaders + [.idempotencyKey: "carol-seat-1"]
                let first = try await client.execute(uri: "/v1/rails/evm" + path + "/purchase", method: .post, headers: keyed, body: jsonBody([:]))
                let retry = try await client.execute(uri: "/v1/rails/evm" + path + "/purchase", method: .post, headers: keyed, body: jsonBody([:]))
                #expect(first.status == .accepted, "\(first.text)")
                let carolSeat = try #require(first.object["id"] as? String)
                #expect(retry.object["id"] as? String == carolSeat)
                #expect(try await ItemMintTests.settled(carolSeat, as: "carol", client)["state"] as? String == "confirmed")
                let full = try await client.evm(.post, path + "/purchase", as: "dave", [:])
                #expect(full.object["code"] as? String == "call_reverted", "no seat left: \(full.text)")

                // On the hub's own chain the local chain's mirror holds the seats' money in the
                // contract's ledger account: the rail adds nothing of its own (no double counting).
                let contract = try #require(
                    try await hub.database.read { try $0.queryFirst("SELECT address FROM evm_contracts WHERE name = 'Lectures'")?.text("address") }
                )
                let mirror = try #require(
                    try await hub.ledger.account(LocalChainIDs.ledgerAccount(chainID: Self.chainID, address: try EthereumAddress(contract)))
                )
                #expect(mirror.creditsPosted - mirror.debitsPosted == 2_000_000_000_000_000_000)
                let railAssets = try await hub.database.read {
                    try $0.queryFirst("SELECT count(*) AS n FROM ledger_assets WHERE code LIKE 'EVM-%'")?.int("n")
                }
                #expect(railAssets == 0)

                var shown = try await client.evm(.get, path, as: "bob").object
                #expect(shown["seats_left"] as? Int == 0)
                #expect((shown["lecture"] as? [String: Any])?["curriculum"] as? [String] == ["clay", "wheel", "glaze"])
                #expect(shown["students"] == nil, "a student does not see the class list")
                #expect(((shown["my_seats"] as? [[String: Any]])?.first)?["may_evaluate"] as? Bool == false)

                // Evaluating needs attendance, which only the teacher records.
                let early = try await client.evm(.post, path + "/evaluate", as: "bob", ["scores": [100, 100, 100, 100, 100]])
                #expect(early.object["code"] as? String == "call_reverted", "\(early.text)")
                let notTeacher = try await client.evm(.post, path + "/attendance", as: "carol", ["session": 0, "student": bob])
                #expect(notTeacher.object["code"] as? String == "call_reverted")
                #expect(
                    try await ListingTests.run(client, path + "/attendance", as: "tina", ["session": 0, "student": bob])["state"] as? String
                        == "confirmed"
                )
                shown = try await client.evm(.get, path, as: "bob").object
                let mine = try #require((shown["my_seats"] as? [[String: Any]])?.first)
                #expect(mine["may_evaluate"] as? Bool == true, "\(mine)")
                #expect((mine["seat"] as? [String: Any])?["attendance"] as? Int == 1)
                let outOfRange = try await client.evm(.post, path + "/evaluate", as: "bob", ["scores": [101, 0, 0, 0, 0]])
                #expect(outOfRange.object["field"] as? String == "scores")
                #expect(
                    try await ListingTests.run(
                        client,
                        path + "/evaluate",
                        as: "bob",
                        ["scores": [100, 100, 100, 100, 100], "review": "Clear and patient."]
                    )["state"] as? String == "confirmed"
                )
                let again = try await client.evm(.post, path + "/evaluate", as: "bob", ["scores": [0, 0, 0, 0, 0]])
                #expect(again.object["code"] as? String == "call_reverted", "one evaluation each: \(again.text)")

                // Settling: only the teacher or an admin asks, only after the end, only once.
                let stranger = try await client.evm(.post, path + "/settle", as: "carol", [:])
                #expect(stranger.status == .forbidden)
                let tooSoon = try await client.evm(.post, path + "/settle", as: "tina", [:])
                #expect(tooSoon.object["code"] as? String == "call_reverted", "\(tooSoon.text)")
                while UInt64(Date().timeIntervalSince1970) <= end + 1 { try await Task.sleep(for: .milliseconds(250)) }
                #expect(try await ListingTests.run(client, path + "/settle", as: "tina")["state"] as? String == "confirmed")
                let second = try await client.evm(.post, path + "/settle", as: "tina", [:])
                #expect(second.object["code"] as? String == "call_reverted", "no second payout")

                // Two seats of one coin, average 100: fee 0.2, incentive 15 % of it, the rest to the teacher.
                shown = try await client.evm(.get, path, as: "tina").object
                let run = try #require((shown["runs"] as? [[String: Any]])?.first)
                #expect(run["state"] as? String == "settled")
                #expect(run["total"] as? String == "2000000000000000000")
                #expect(run["average"] as? Int == 100)
                #expect(run["fee"] as? String == "200000000000000000")
                #expect(run["incentive"] as? String == "30000000000000000")
                #expect(run["teacher_amount"] as? String == "1830000000000000000")
                let students = try #require(shown["students"] as? [[String: Any]])
                #expect(Set(students.compactMap { $0["student"] as? String }) == [bob, carol])
                #expect(students.first { $0["student"] as? String == bob }?["review"] as? String == "Clear and patient.")
                let earnings = try await client.evm(.get, "/lectures/earnings", as: "tina").object
                #expect(earnings["pending"] as? String == "1830000000000000000", "\(earnings)")
                #expect(earnings["settled"] as? String == "1830000000000000000")
                #expect(try await ListingTests.run(client, "/lectures/earnings", as: "tina")["state"] as? String == "confirmed")
                #expect(try await client.evm(.get, "/lectures/earnings", as: "tina").object["pending"] as? String == "0")
                #expect(try await ListingTests.balance(client, teacher) == "1830000000000000000")

                // A re-run, cancelled: its student takes the payment back.
                let rerun = try await ListingTests.run(
                    client,
                    path + "/rerun",
                    as: "tina",
                    ["price": Self.coin, "capacity": 1, "end_time": UInt64(Date().timeIntervalSince1970) + 600]
                )
                #expect(rerun["state"] as? String == "confirmed", "\(rerun)")
                #expect(try await ListingTests.run(client, path + "/purchase", as: "bob")["state"] as? String == "confirmed")
                #expect(try await ListingTests.balance(client, bob) == "1000000000000000000")
                let earlyRefund = try await client.evm(.post, path + "/refund", as: "bob", ["run": 1])
                #expect(earlyRefund.object["code"] as? String == "call_reverted", "not cancelled yet")
                #expect(try await ListingTests.run(client, path + "/cancel", as: "tina")["state"] as? String == "confirmed")
                #expect(try await ListingTests.run(client, path + "/refund", as: "bob", ["run": 1])["state"] as? String == "confirmed")
                #expect(try await ListingTests.balance(client, bob) == "2000000000000000000")
                let taught = try await client.evm(.get, "/lectures?role=teacher", as: "tina").object["data"] as? [[String: Any]]
                #expect(taught?.count == 1)
                let attended = try await client.evm(.get, "/lectures?role=student", as: "carol").object["data"] as? [[String: Any]]
                #expect(attended?.count == 1)
                #expect((try await client.evm(.get, "/lectures?role=student", as: "tina").object["data"] as? [[String: Any]])?.isEmpty == true)

                #expect(try await count(EVMEvents.lectureCreated, in: hub) == 1)
                #expect(try await count(EVMEvents.lecturePurchased, in: hub) == 3)
                #expect(try await count(EVMEvents.lectureEvaluated, in: hub) == 1)
                #expect(try await count(EVMEvents.lectureSettled, in: hub) == 1)
                #expect(try await count(EVMEvents.lectureRefunded, in: hub) == 1)
                let unknown = try await client.evm(.post, "/lectures/hub/999/purchase", as: "bob", [:])
                #expect(unknown.status == .notFound, "\(unknown.text)")
                #expect(try await client.evm(.get, "/lectures/hub/11384619561256443904", as: "bob").status == .notFound)
                try await hub.ledger.expectVerified()
                let chains = try #require(try await LocalChainVerifier.verify(hub.database))
                #expect(chains.problems.isEmpty, "\(chains.problems)")
            }
        }

        @Test("more students than seats buy at once: exactly the capacity is sold, everyone else's money untouched", arguments: TestBackend.enabled)
        func seatRace(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                _ = try await client.evm(.post, "/accounts", as: "tina", [:])
                let students = (1...5).map { "student\($0)" }
                var addresses: [String: String] = [:]
                for student in students { addresses[student] = try await ListingTests.fund(client, student, coins: 2) }
                let lectureID = try await Self.create(client, as: "tina", capacity: 3, endTime: UInt64(Date().timeIntervalSince1970) + 600)
                let path = "/lectures/hub/\(lectureID)"
                let outcomes = try await withThrowingTaskGroup(of: (String, String).self) { group in
                    for student in students {
                        group.addTask {
                            let sent = try await client.evm(.post, path + "/purchase", as: student, [:])
                            guard let id = sent.object["id"] as? String else { return (student, sent.object["code"] as? String ?? "?") }
                            return (student, try await ItemMintTests.settled(id, as: student, client)["state"] as? String ?? "?")
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                let winners = outcomes.filter { $0.value == "confirmed" }.keys
                #expect(winners.count == 3, "\(outcomes)")
                for student in students {
                    let balance = try await ListingTests.balance(client, try #require(addresses[student]))
                    #expect(balance == (winners.contains(student) ? "1000000000000000000" : "2000000000000000000"), "\(student)")
                }
                let shown = try await client.evm(.get, path, as: "tina").object
                #expect(shown["seats_left"] as? Int == 0)
                #expect((shown["students"] as? [[String: Any]])?.count == 3)
                #expect(try await count(EVMEvents.lecturePurchased, in: hub) == 3)
            }
        }
    }
}
