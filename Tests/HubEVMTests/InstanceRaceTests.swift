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
    /// Two instances of the rail on one database, as several `hubd` on one PostgreSQL run it: each
    /// with its own sender (its own in-process locks) and its own tracker.
    @Suite("EVM rail: two instances on one database", .timeLimit(.minutes(4)))
    struct InstanceRaceTests {
        @Test(
            "sends from one account through both instances take distinct nonces, and trackers side by side settle each operation once",
            arguments: TestBackend.enabled
        )
        func twoInstances(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                _ = try await ListingTests.mint(client, as: "alice")  // deploys the contracts, opens alice's account
                let plugin = try #require(hub.plugins.running.first { $0.id == EVMPlugin.id }?.plugin as? EVMPlugin)
                let aliceText = try await hub.database.read { try $0.queryFirst("SELECT user_id FROM evm_accounts")?.text("user_id") }
                let alice = try #require(aliceText.flatMap { UserID($0) })
                // The second instance: its own sender, locks and tracker over the same database.
                let other = ItemsService(
                    context: plugin.context,
                    chains: plugin.chains,
                    accounts: plugin.accounts,
                    contracts: plugin.contracts,
                    sender: TransactionSender(context: plugin.context, locks: SenderLocks()),
                    images: plugin.items.images
                )
                let tracker = OperationTracker(context: plugin.context, chains: plugin.chains, interval: .milliseconds(20))
                let tracking = Task { try await tracker.run() }
                defer { tracking.cancel() }

                let sent = try await withThrowingTaskGroup(of: String?.self) { group in
                    for index in 0..<8 {
                        let service = index % 2 == 0 ? plugin.items : other
                        group.addTask {
                            let new = ItemsService.NewItem(
                                chain: nil,
                                title: "Race \(index)",
                                description: "",
                                category: "race",
                                uri: nil,
                                images: []
                            )
                            guard case .sent(let operation) = try await service.mint(new, by: alice) else { return nil }
                            return operation.id
                        }
                    }
                    return try await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
                }
                #expect(sent.count == 8)
                for id in sent {
                    let settled = try await ItemMintTests.settled(id, as: "alice", client)
                    #expect(settled["state"] as? String == "confirmed", "\(settled)")
                }
                let (operations, nonces) = try #require(
                    try await hub.database.read {
                        try $0.queryFirst("SELECT count(*) AS n, count(DISTINCT nonce) AS d FROM evm_operations WHERE kind = 'mint'")
                            .map { (try $0.int("n"), try $0.int("d")) }
                    }
                )
                #expect(operations == 9 && nonces == 9, "one nonce each: \(operations) operations, \(nonces) nonces")
                let items = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_items WHERE category = 'race'")?.int("n") }
                #expect(items == 8, "each mint indexed once")
                #expect(try await count(EVMEvents.itemMinted, in: hub) == 9)
                let submitted = try await count(EVMEvents.operationSubmitted, in: hub)
                #expect(try await count(EVMEvents.operationConfirmed, in: hub) == submitted, "each operation settled once")
            }
        }
    }
}
