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
    @Suite("EVM rail: reviews and chat", .timeLimit(.minutes(3)))
    struct ReviewsChatTests {
        @Test("each party of a completed sale reviews the other once; an average rating follows", arguments: TestBackend.enabled)
        func reviews(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let token = try await ListingTests.mint(client, as: "alice")
                let listed = try await ListingTests.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "sale", "token_id": token, "price": ListingTests.coin]
                )
                let listingID = try #require((listed["result"] as? [String: String])?["listing_id"])
                let early = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "alice", ["rating": 5])
                #expect(early.object["code"] as? String == "sale_not_completed")
                _ = try await ListingTests.fund(client, "bob", coins: 2)
                #expect(try await ListingTests.run(client, "/listings/hub/\(listingID)/buy", as: "bob")["state"] as? String == "confirmed")

                let stranger = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "carol", ["rating": 1])
                #expect(stranger.status == .forbidden)
                let outOfRange = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "bob", ["rating": 6])
                #expect(outOfRange.object["field"] as? String == "rating")
                let byBuyer = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "bob", ["rating": 5, "text": "Quick and kind."])
                #expect(byBuyer.status == .created, "\(byBuyer.text)")
                #expect(byBuyer.object["role"] as? String == "buyer")
                let bySeller = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "alice", ["rating": 4])
                #expect(bySeller.status == .created)
                let twice = try await client.evm(.post, "/listings/hub/\(listingID)/reviews", as: "bob", ["rating": 1])
                #expect(twice.status == .conflict)
                #expect(try await count(EVMEvents.reviewCreated, in: hub) == 2)

                let seller = try #require(byBuyer.object["reviewee"] as? String)
                let rating = try await client.evm(.get, "/ratings/\(seller.lowercased())", as: "carol").object
                #expect(rating["count"] as? Int == 1)
                #expect(rating["average"] as? String == "5.00")
                let listedReviews = try #require(
                    try await client.evm(.get, "/listings/hub/\(listingID)/reviews", as: "carol").object["data"] as? [[String: Any]]
                )
                #expect(listedReviews.count == 2)
            }
        }

        @Test("chat: a thread per buyer, the seller answers by naming it, read receipts", arguments: TestBackend.enabled)
        func chat(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let token = try await ListingTests.mint(client, as: "alice")
                let listed = try await ListingTests.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "sale", "token_id": token, "price": ListingTests.coin]
                )
                let listingID = try #require((listed["result"] as? [String: String])?["listing_id"])
                let path = "/listings/hub/\(listingID)/messages"

                #expect(try await client.evm(.post, path, as: "bob", ["text": "Is it still available?"]).status == .created)
                #expect(try await client.evm(.post, path, as: "carol", ["text": "Would you take less?"]).status == .created)
                let unnamed = try await client.evm(.post, path, as: "alice", ["text": "Yes"])
                #expect(unnamed.object["field"] as? String == "to")
                let nobody = try await client.evm(.post, path, as: "alice", ["text": "Yes", "to": uid("dave")])
                #expect(nobody.status == .notFound)
                let answer = try await client.evm(.post, path, as: "alice", ["text": "Yes, it is.", "to": uid("bob")])
                #expect(answer.status == .created, "\(answer.text)")
                let empty = try await client.evm(.post, path, as: "bob", ["text": "  "])
                #expect(empty.object["field"] as? String == "text")

                let sellerView = try #require(try await client.evm(.get, path, as: "alice").object["data"] as? [[String: Any]])
                #expect(sellerView.count == 3)
                let bobView = try #require(try await client.evm(.get, path, as: "bob").object["data"] as? [[String: Any]])
                #expect(bobView.map { $0["text"] as? String } == ["Is it still available?", "Yes, it is."])
                #expect(bobView.last?["read_at"] == nil)
                let carolView = try #require(try await client.evm(.get, path, as: "carol").object["data"] as? [[String: Any]])
                #expect(carolView.count == 1)

                let read = try await client.evm(.post, path + "/read", as: "bob", [:])
                #expect(read.object["marked_read"] as? Int == 1)
                let after = try #require(try await client.evm(.get, path, as: "bob").object["data"] as? [[String: Any]])
                #expect(after.last?["read_at"] as? String != nil)
                #expect(after.first?["read_at"] == nil, "bob's own message is alice's to read")
                #expect(try await count(EVMEvents.chatMessage, in: hub) == 3)
                #expect(try await count(EVMEvents.chatRead, in: hub) == 1)
            }
        }
    }
}
