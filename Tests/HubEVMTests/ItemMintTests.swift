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

extension EVMRailTests {
    @Suite("EVM rail: items minted on the hub's chain", .timeLimit(.minutes(3)))
    struct ItemMintTests {
        /// Waits (up to 30 s) for the operation to leave `pending`; returns it.
        static func settled(_ id: String, as user: String, _ client: any TestClientProtocol) async throws -> [String: Any] {
            for _ in 0..<300 {
                let operation = try await client.evm(.get, "/operations/\(id)", as: user).object
                if operation["state"] as? String != "pending" { return operation }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("operation \(id) stayed pending")
            return [:]
        }

        @Test("a mint deploys the contracts on first use, confirms, and the item shows its provenance from the chain", arguments: TestBackend.enabled)
        func mint(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let accepted = try await client.evm(
                    .post,
                    "/items",
                    as: "alice",
                    ["title": "Blue vase", "category": "ceramics", "description": "Thrown by hand.", "delivery": "pickup"]
                )
                #expect(accepted.status == .accepted, "\(accepted.text)")
                let id = try #require(accepted.object["id"] as? String)
                #expect(accepted.object["state"] as? String == "pending")
                #expect((accepted.object["tx_hash"] as? String)?.count == 66)
                let done = try await Self.settled(id, as: "alice", client)
                #expect(done["state"] as? String == "confirmed", "\(done)")
                #expect((done["result"] as? [String: String])?["token_id"] == "1")
                #expect(try await count(EVMEvents.contractDeployed, in: hub) == 1)
                #expect(try await count(EVMEvents.itemMinted, in: hub) == 1)

                let alice =
                    try #require(try await client.evm(.get, "/accounts", as: "alice").object["data"] as? [[String: Any]]).first?["address"] as? String
                let shown = try await client.evm(.get, "/items/hub/1", as: "bob")
                #expect(shown.status == .ok, "\(shown.text)")
                let item = try #require(shown.object["item"] as? [String: Any])
                #expect(item["title"] as? String == "Blue vase")
                #expect(item["delivery"] as? String == "pickup")
                #expect(item["owner"] as? String == alice)
                #expect(item["artist"] as? String == alice)
                let provenance = try #require(shown.object["provenance"] as? [[String: Any]])
                #expect(provenance.count == 1)
                #expect(provenance.first?["event"] as? String == "minted")
                #expect(provenance.first?["to"] as? String == alice)
                #expect(provenance.first?["tx_hash"] as? String == done["tx_hash"] as? String)

                // Someone else's operation is not theirs to see; an admin sees every one (the platform's
                // deployment has no user).
                #expect(try await client.evm(.get, "/operations/\(id)", as: "bob").status == .notFound)
                let mine = try #require(try await client.evm(.get, "/operations", as: "alice").object["data"] as? [[String: Any]])
                #expect(mine.map { $0["id"] as? String } == [id])
                #expect(try #require(try await client.evm(.get, "/operations", as: "bob").object["data"] as? [[String: Any]]).isEmpty)
                let all = try await client.execute(uri: "/v1/rails/evm/operations", method: .get, headers: bearer("root", "admin"))
                #expect((all.object["data"] as? [[String: Any]])?.count == 2)
                let listed = try #require(try await client.evm(.get, "/items?category=ceramics", as: "bob").object["data"] as? [[String: Any]])
                #expect(listed.count == 1)
                #expect(try #require(try await client.evm(.get, "/items?category=paintings", as: "bob").object["data"] as? [[String: Any]]).isEmpty)
            }
        }

        @Test("many mints from one account at once take one nonce each and all confirm", arguments: TestBackend.enabled)
        func concurrentMints(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                    for index in 0..<6 {
                        group.addTask {
                            try await client.evm(.post, "/items", as: "alice", ["title": "Print \(index)", "category": "prints"]).object["id"]
                                as? String
                        }
                    }
                    var all: [String] = []
                    for try await id in group { if let id { all.append(id) } }
                    return all
                }
                #expect(ids.count == 6)
                var tokens: Set<String> = []
                for id in ids {
                    let done = try await Self.settled(id, as: "alice", client)
                    #expect(done["state"] as? String == "confirmed")
                    if let token = (done["result"] as? [String: String])?["token_id"] { tokens.insert(token) }
                }
                #expect(tokens == Set((1...6).map(String.init)))
                let nonces = try await hub.database.read { connection in
                    try connection.query("SELECT nonce FROM evm_operations WHERE kind = 'mint' ORDER BY nonce").map { try $0.int("nonce") }
                }
                #expect(nonces == Array(0..<6))
            }
        }

        @Test("bad input is refused before anything is sent", arguments: TestBackend.enabled)
        func badInput(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let cases: [([String: Any], String)] = [
                    (["title": " ", "category": "prints"], "title"),
                    (["title": "A", "category": "Not A Category!"], "category"),
                    (["title": "A", "category": "prints", "uri": "has spaces in it"], "uri"),
                    (["title": "A", "category": "prints", "chain": "elsewhere"], "chain"),
                    (["title": "A", "category": "prints", "delivery": "Carrier pigeon"], "delivery"),
                ]
                for (body, field) in cases {
                    let refused = try await client.evm(.post, "/items", as: "alice", body)
                    #expect(refused.status.code >= 400 && refused.status.code < 500, "\(field)")
                    #expect(refused.object["field"] as? String == field, "\(refused.text)")
                }
                let operations = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations")?.int("n") }
                #expect(operations == 0)
                #expect(try await client.evm(.get, "/items/hub/99", as: "alice").status == .notFound)
            }
        }
    }
}
