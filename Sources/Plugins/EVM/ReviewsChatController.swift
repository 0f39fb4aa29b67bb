import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/evm/listings/{chain}/{id}/reviews|messages…` and `/v1/rails/evm/ratings/{address}`:
/// reviews of a completed sale's parties, a party's average rating, and chat on a listing.
struct ReviewsChatController: Sendable {
    let reviews: ReviewsService
    let chat: ChatService

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("listings/{chain}/{id}/reviews", use: review)
        group.get("listings/{chain}/{id}/reviews", use: listReviews)
        group.get("ratings/{address}", use: rating)
        group.post("listings/{chain}/{id}/messages", use: send)
        group.get("listings/{chain}/{id}/messages", use: messages)
        group.post("listings/{chain}/{id}/messages/read", use: markRead)
    }

    static func listing(_ context: HubRequestContext) throws -> (String, UInt64) {
        guard let chain = context.parameters.get("chain"), let id = context.storedID("id") else {
            throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No such listing.")
        }
        return (chain, id)
    }

    struct ReviewRequest: Decodable {
        var rating: Int
        var text: String?
    }

    @Sendable func review(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (chain, id) = try Self.listing(context)
        var request = request
        let body = try await request.decodeJSON(as: ReviewRequest.self, context: context)
        let review = try await reviews.review(chain: chain, listingID: id, rating: body.rating, text: body.text ?? "", by: principal.userID)
        return try context.json(review, status: .created)
    }

    @Sendable func listReviews(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let (chain, id) = try Self.listing(context)
        return try context.json(["data": try await reviews.reviews(chain: chain, listingID: id)])
    }

    @Sendable func rating(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        guard let address = context.parameters.get("address"), let normalised = try? EthereumAddress(address).checksummed else {
            throw EVMError.invalid("address", "An address is 0x followed by 40 hex digits.")
        }
        return try context.json(try await reviews.rating(of: normalised))
    }

    /// Text, an image (an id from `POST /images`), or both.
    struct MessageRequest: Decodable {
        var text: String?
        var image: String?
        /// The seller answering: the buyer's user id (the thread).
        var to: String?
    }

    @Sendable func send(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (chain, id) = try Self.listing(context)
        var request = request
        let body = try await request.decodeJSON(as: MessageRequest.self, context: context)
        let message = try await chat.send(
            chain: chain,
            listingID: id,
            text: body.text,
            image: body.image,
            toBuyer: body.to,
            by: principal.userID
        )
        return try context.json(message, status: .created)
    }

    @Sendable func messages(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let (chain, id) = try Self.listing(context)
        return try context.json(["data": try await chat.messages(chain: chain, listingID: id, for: principal.userID)])
    }

    struct ReadRequest: Decodable {
        var to: String?
    }

    @Sendable func markRead(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (chain, id) = try Self.listing(context)
        var request = request
        let body = try await request.decodeJSON(as: ReadRequest.self, context: context)
        let count = try await chat.markRead(chain: chain, listingID: id, buyer: body.to, by: principal.userID)
        return try context.json(["marked_read": count])
    }
}
