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
    /// The three sale formats on the hub's own chain, end to end over HTTP: the marketplace contract
    /// holds the rules, the rail's index follows the chain.
    @Suite("EVM rail: listings on the hub's chain", .timeLimit(.minutes(3)))
    struct ListingTests {
        static let coin = "1000000000000000000"
        static let chainID = EVMChainSettings.hostedDefault.chainID

        /// Mints an item for `user` and waits for it; returns the token id.
        static func mint(_ client: any TestClientProtocol, as user: String) async throws -> UInt64 {
            let sent = try await client.evm(.post, "/items", as: user, ["title": "Lot", "category": "art"])
            let done = try await ItemMintTests.settled(try #require(sent.object["id"] as? String), as: user, client)
            return try #require(UInt64((done["result"] as? [String: String])?["token_id"] ?? ""))
        }

        /// Sends an action and waits for its operation; returns the settled operation.
        static func run(_ client: any TestClientProtocol, _ path: String, as user: String, _ body: [String: Any] = [:]) async throws -> [String: Any]
        {
            let sent = try await client.evm(.post, path, as: user, body)
            #expect(sent.status == .accepted, "\(path): \(sent.text)")
            guard let id = sent.object["id"] as? String else { return sent.object }
            return try await ItemMintTests.settled(id, as: user, client)
        }

        /// Funds `user`'s custodial account on the hub's chain with `coins` (an admin's grant).
        static func fund(_ client: any TestClientProtocol, _ user: String, coins: Int) async throws -> String {
            let address = try #require(try await client.evm(.post, "/accounts", as: user, [:]).object["address"] as? String)
            let granted = try await client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/grants",
                method: .post,
                headers: bearer("root", "admin") + jsonHeaders,
                body: jsonBody(["to": address, "amount": "\(coins)000000000000000000"])
            )
            #expect(granted.status == .accepted, "\(granted.text)")
            for _ in 0..<100 where try await balance(client, address) == "0" { try await Task.sleep(for: .milliseconds(100)) }
            return address
        }

        static func balance(_ client: any TestClientProtocol, _ address: String) async throws -> String {
            let answer = try await client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/rpc",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": [address, "latest"]])
            )
            let hex = try #require(answer.object["result"] as? String)
            return try UInt256(bigEndian: try Hex.decode(hex.count % 2 == 0 ? hex : "0x0" + hex.dropFirst(2))).description
        }

        @Test(
            "a direct sale: listed, bought atomically, the split credited and withdrawn; mistakes refused before sending",
            arguments: TestBackend.enabled
        )
        func directSale(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let token = try await Self.mint(client, as: "alice")
                let listed = try await Self.run(client, "/listings", as: "alice", ["kind": "sale", "token_id": token, "price": Self.coin])
                #expect(listed["state"] as? String == "confirmed", "\(listed)")
                let listingID = try #require((listed["result"] as? [String: String])?["listing_id"])
                let open = try await client.evm(.get, "/listings/hub/\(listingID)", as: "bob").object
                #expect(open["state"] as? String == "open")
                #expect(open["price"] as? String == Self.coin)

                let bob = try await Self.fund(client, "bob", coins: 5)
                // Only the seller cancels: a stranger is refused before anything is sent.
                let strangerCancel = try await client.evm(.post, "/listings/hub/\(listingID)/cancel", as: "bob", [:])
                #expect(strangerCancel.object["code"] as? String == "call_reverted")
                let wrongKind = try await client.evm(.post, "/listings/hub/\(listingID)/bid", as: "bob", ["amount": Self.coin])
                #expect(wrongKind.object["code"] as? String == "wrong_kind")
                let bought = try await Self.run(client, "/listings/hub/\(listingID)/buy", as: "bob")
                #expect(bought["state"] as? String == "confirmed", "\(bought)")
                let sold = try await client.evm(.get, "/listings/hub/\(listingID)", as: "bob").object
                #expect(sold["state"] as? String == "completed")
                #expect(sold["buyer"] as? String == bob)
                let item = try await client.evm(.get, "/items/hub/\(token)", as: "bob").object
                #expect((item["item"] as? [String: Any])?["owner"] as? String == bob)
                #expect((item["provenance"] as? [[String: Any]])?.count == 3, "minted, into the marketplace, to the buyer")
                #expect(try await count(EVMEvents.saleCompleted, in: hub) == 1)
                #expect(try await Self.balance(client, bob) == "4000000000000000000")

                // The seller is also the artist: price − 2.5 % fee (royalty 5 % comes back to them).
                let owed = try await client.evm(.get, "/withdrawals", as: "alice").object
                #expect(owed["amount"] as? String == "975000000000000000")
                let withdrawn = try await Self.run(client, "/withdrawals", as: "alice")
                #expect(withdrawn["state"] as? String == "confirmed")
                #expect(try await client.evm(.get, "/withdrawals", as: "alice").object["amount"] as? String == "0")
                let alice =
                    try #require(try await client.evm(.get, "/accounts", as: "alice").object["data"] as? [[String: Any]]).first?["address"] as? String
                #expect(try await Self.balance(client, try #require(alice)) == "975000000000000000")

                // Buying a closed listing, or with no money, is refused and sends nothing.
                let operationsBefore = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations")?.int("n") }
                let again = try await client.evm(.post, "/listings/hub/\(listingID)/buy", as: "bob", [:])
                #expect(again.status == .unprocessableContent)
                #expect(again.object["code"] as? String == "call_reverted")
                let unknown = try await client.evm(.post, "/listings/hub/999/buy", as: "bob", [:])
                #expect(unknown.status == .notFound)
                // Ids past a BIGINT name nothing stored: "not found", never a crash binding them.
                let huge = "11384619561256443904"
                for path in ["/listings/hub/\(huge)", "/listings/hub/\(huge)/reviews", "/listings/hub/\(huge)/messages", "/items/hub/\(huge)"] {
                    #expect(try await client.evm(.get, path, as: "bob").status == .notFound, "\(path)")
                }
                #expect(try await client.evm(.post, "/listings/hub/\(huge)/buy", as: "bob", [:]).status == .notFound)
                let noAccount = try await client.evm(.post, "/listings", as: "carol", ["kind": "sale", "token_id": token, "price": Self.coin])
                #expect(noAccount.object["code"] as? String == "account_not_found", "\(noAccount.text)")
                _ = try await client.evm(.post, "/accounts", as: "carol", [:])
                let relist = try await client.evm(.post, "/listings", as: "carol", ["kind": "sale", "token_id": token, "price": Self.coin])
                #expect(relist.status == .forbidden)
                #expect(relist.object["code"] as? String == "not_owner", "bob's token, not carol's: \(relist.text)")
                let nothingOwed = try await client.evm(.post, "/withdrawals", as: "carol", [:])
                #expect(nothingOwed.object["code"] as? String == "call_reverted")
                let operationsAfter = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations")?.int("n") }
                #expect(operationsAfter == operationsBefore, "nothing was sent")
            }
        }

        @Test("two buyers race for one escrow: one wins, the other's money is untouched; delivery then completes it", arguments: TestBackend.enabled)
        func escrowRace(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                _ = try await Self.fund(client, "alice", coins: 2)
                let token = try await Self.mint(client, as: "alice")
                let created = try await Self.run(client, "/listings", as: "alice", ["kind": "escrow", "token_id": token, "price": Self.coin])
                #expect(created["state"] as? String == "confirmed", "\(created)")
                let listingID = try #require((created["result"] as? [String: String])?["listing_id"])
                let bob = try await Self.fund(client, "bob", coins: 3)
                let carol = try await Self.fund(client, "carol", coins: 3)

                async let bobTry = Self.run(client, "/listings/hub/\(listingID)/purchase", as: "bob")
                async let carolTry = Self.run(client, "/listings/hub/\(listingID)/purchase", as: "carol")
                let outcomes = try await [bobTry, carolTry]
                let winners = outcomes.filter { $0["state"] as? String == "confirmed" }
                #expect(winners.count == 1, "\(outcomes)")
                let locked = try await client.evm(.get, "/listings/hub/\(listingID)", as: "bob").object
                #expect(locked["state"] as? String == "locked")
                let buyer = try #require(locked["buyer"] as? String)
                let (winner, loser) = buyer == bob ? ("bob", carol) : ("carol", bob)
                #expect(try await Self.balance(client, buyer) == "1000000000000000000", "paid price and deposit")
                #expect(try await Self.balance(client, loser) == "3000000000000000000", "the loser's money is untouched")

                let early = try await client.evm(.post, "/listings/hub/\(listingID)/confirm", as: winner, [:])
                #expect(early.object["code"] as? String == "call_reverted", "nothing delivered yet")
                #expect(try await Self.run(client, "/listings/hub/\(listingID)/transfer", as: "alice")["state"] as? String == "confirmed")
                #expect(try await Self.run(client, "/listings/hub/\(listingID)/confirm", as: winner)["state"] as? String == "confirmed")
                let done = try await client.evm(.get, "/listings/hub/\(listingID)", as: "bob").object
                #expect(done["state"] as? String == "completed")
                // The buyer's deposit comes back to them, to withdraw.
                #expect(try await client.evm(.get, "/withdrawals", as: winner).object["amount"] as? String == Self.coin)
                #expect(try await count(EVMEvents.saleCompleted, in: hub) == 1)
            }
        }

        @Test(
            "an auction: bids, the outbid bidder's money to withdraw, anti-sniping; one without bids ends back to its seller",
            arguments: TestBackend.enabled
        )
        func auction(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let token = try await Self.mint(client, as: "alice")
                let end = UInt64(Date().timeIntervalSince1970) + 60
                let created = try await Self.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "auction", "token_id": token, "price": Self.coin, "end_time": end]
                )
                #expect(created["state"] as? String == "confirmed", "\(created)")
                let tooLong = try await client.evm(
                    .post,
                    "/listings",
                    as: "alice",
                    ["kind": "auction", "token_id": token, "price": Self.coin, "end_time": end + ListingsService.longestAuction]
                )
                #expect(tooLong.object["field"] as? String == "end_time", "\(tooLong.text)")
                let listingID = try #require((created["result"] as? [String: String])?["listing_id"])
                _ = try await Self.fund(client, "bob", coins: 3)
                let carol = try await Self.fund(client, "carol", coins: 3)
                let low = try await client.evm(.post, "/listings/hub/\(listingID)/bid", as: "bob", ["amount": "1"])
                #expect(low.object["code"] as? String == "call_reverted", "below the reserve")
                let own = try await client.evm(.post, "/listings/hub/\(listingID)/bid", as: "alice", ["amount": Self.coin])
                #expect(own.object["code"] as? String == "call_reverted", "the seller may not bid")
                #expect(
                    try await Self.run(client, "/listings/hub/\(listingID)/bid", as: "bob", ["amount": Self.coin])["state"] as? String == "confirmed"
                )
                #expect(
                    try await Self.run(client, "/listings/hub/\(listingID)/bid", as: "carol", ["amount": "2000000000000000000"])["state"] as? String
                        == "confirmed"
                )
                #expect(try await client.evm(.get, "/withdrawals", as: "bob").object["amount"] as? String == Self.coin)
                #expect(try await count(EVMEvents.bidPlaced, in: hub) == 2)
                let bidding = try await client.evm(.get, "/listings/hub/\(listingID)", as: "bob").object
                #expect(bidding["buyer"] as? String == carol)
                #expect(bidding["highest_bid"] as? String == "2000000000000000000")
                // A bid in the last five minutes moves the end to five minutes after it.
                #expect((bidding["deadline"] as? Int).map { UInt64($0) >= end + 230 } == true, "\(bidding)")
                let early = try await client.evm(.post, "/listings/hub/\(listingID)/end", as: "bob", [:])
                #expect(early.object["code"] as? String == "call_reverted", "not over yet")
                let cancel = try await client.evm(.post, "/listings/hub/\(listingID)/cancel", as: "alice", [:])
                #expect(cancel.object["code"] as? String == "call_reverted", "a seller cannot cancel once bid on")

                // Without bids, anyone ends it after its end and the token goes back to the seller.
                let second = try await Self.mint(client, as: "alice")
                let soon = UInt64(Date().timeIntervalSince1970) + 3
                let quiet = try await Self.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "auction", "token_id": second, "price": Self.coin, "end_time": soon]
                )
                let quietID = try #require((quiet["result"] as? [String: String])?["listing_id"])
                try await Task.sleep(for: .seconds(4))
                #expect(try await Self.run(client, "/listings/hub/\(quietID)/end", as: "bob")["state"] as? String == "confirmed")
                let alice =
                    try #require(try await client.evm(.get, "/accounts", as: "alice").object["data"] as? [[String: Any]]).first?["address"] as? String
                let item = try await client.evm(.get, "/items/hub/\(second)", as: "bob").object
                #expect((item["item"] as? [String: Any])?["owner"] as? String == alice)
                #expect(try await client.evm(.get, "/listings/hub/\(quietID)", as: "bob").object["state"] as? String != "open")
            }
        }

        @Test(
            "many bidders at once: the highest confirmed bid leads, every outbid bidder's money is theirs to withdraw, refused bids cost nothing",
            arguments: TestBackend.enabled
        )
        func biddersRace(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let token = try await Self.mint(client, as: "alice")
                let end = UInt64(Date().timeIntervalSince1970) + 600
                let created = try await Self.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "auction", "token_id": token, "price": Self.coin, "end_time": end]
                )
                let listingID = try #require((created["result"] as? [String: String])?["listing_id"])
                let bidders = (1...5).map { "bidder\($0)" }
                var addresses: [String: String] = [:]
                for bidder in bidders { addresses[bidder] = try await Self.fund(client, bidder, coins: 10) }
                // Bids of 1.1, 1.2, … 1.5 coins, all at once.
                let outcomes = try await withThrowingTaskGroup(of: (String, UInt256, String).self) { group in
                    for (index, bidder) in bidders.enumerated() {
                        let amount = UInt256(1_000_000_000_000_000_000 + 100_000_000_000_000_000 * UInt64(index + 1))
                        group.addTask {
                            let sent = try await client.evm(.post, "/listings/hub/\(listingID)/bid", as: bidder, ["amount": amount.description])
                            guard let id = sent.object["id"] as? String else { return (bidder, amount, sent.object["code"] as? String ?? "?") }
                            return (bidder, amount, try await ItemMintTests.settled(id, as: bidder, client)["state"] as? String ?? "?")
                        }
                    }
                    return try await group.reduce(into: [(String, UInt256, String)]()) { $0.append($1) }
                }
                let confirmed = outcomes.filter { $0.2 == "confirmed" }
                #expect(!confirmed.isEmpty, "\(outcomes)")
                let top = try #require(confirmed.max { $0.1 < $1.1 })
                let shown = try await client.evm(.get, "/listings/hub/\(listingID)", as: "alice").object
                #expect(shown["buyer"] as? String == addresses[top.0], "the highest confirmed bid leads: \(outcomes)")
                #expect(shown["highest_bid"] as? String == top.1.description)
                let tenCoins = UInt256(10_000_000_000_000_000_000 as UInt64)
                for (bidder, amount, state) in outcomes {
                    let balance = try UInt256(decimal: try await Self.balance(client, try #require(addresses[bidder])))
                    let owed = try UInt256(decimal: try #require(try await client.evm(.get, "/withdrawals", as: bidder).object["amount"] as? String))
                    if state != "confirmed" {
                        #expect(balance == tenCoins && owed.isZero, "\(bidder)'s refused bid cost nothing")
                    } else if bidder == top.0 {
                        #expect(
                            balance.addingReportingOverflow(amount).partialValue == tenCoins && owed.isZero,
                            "the leader's bid is in the contract"
                        )
                    } else {
                        #expect(owed == amount, "\(bidder) was outbid: the bid is theirs to withdraw")
                    }
                }
                #expect(try await count(EVMEvents.bidPlaced, in: hub) == Int64(confirmed.count))
            }
        }
    }
}
