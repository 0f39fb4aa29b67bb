import Foundation
import HubKernel

/// Reviews of buyers and sellers: one per party per completed sale, 1 to 5 with a text, bound to
/// the sale (its listing); the other party is the one reviewed. A party is known by the account
/// that bought or sold: the reviewer must hold it as their custodial account on that chain.
struct ReviewsService: Sendable {
    let context: PluginContext
    let listings: ListingsService

    func review(chain: String, listingID: UInt64, rating: Int, text: String, by user: UserID) async throws -> Review {
        guard (1...5).contains(rating) else { throw EVMError.invalid("rating", "A rating is 1 to 5.") }
        let text = try ItemsService.text(text, field: "text", max: 2_000, allowEmpty: true)
        guard let listing = try await listings.listing(chain: chain, id: listingID) else {
            throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No such listing.")
        }
        guard listing.state == "completed", let buyer = listing.buyer else {
            throw EVMError(kind: .refused, errorCode: "sale_not_completed", message: "Only a completed sale can be reviewed.")
        }
        let mine = try await context.database.read { connection in
            try connection.queryFirst("SELECT address FROM evm_accounts WHERE chain = \(chain) AND user_id = \(user)")?.text("address")
        }
        let (role, reviewee): (String, String)
        switch mine {
        case listing.seller: (role, reviewee) = ("seller", buyer)
        case buyer: (role, reviewee) = ("buyer", listing.seller)
        default: throw EVMError(kind: .forbidden, errorCode: "not_a_party", message: "Only the buyer and the seller review a sale.")
        }
        let reviewer = mine ?? ""
        return try await context.write { unit in
            let inserted = try unit.connection.execute(
                """
                INSERT INTO evm_reviews (chain, listing_id, reviewer_id, reviewer_address, reviewee_address, role, rating, text, created_at) \
                VALUES (\(chain), \(Int64(listingID)), \(user.description), \(reviewer), \(reviewee), \(role), \(Int64(rating)), \(text), \(unit.now)) \
                ON CONFLICT (chain, listing_id, reviewer_address) DO NOTHING
                """
            )
            guard inserted == 1 else {
                throw EVMError(kind: .conflict, errorCode: "already_reviewed", message: "You have reviewed this sale already.")
            }
            let review = Review(
                chain: chain,
                listingId: listingID,
                reviewer: reviewer,
                reviewee: reviewee,
                role: role,
                rating: rating,
                text: text,
                createdAt: unit.now.description
            )
            try unit.emit(EVMEvents.reviewCreated, subject: "\(chain):\(listingID)", data: review)
            return review
        }
    }

    func reviews(chain: String, listingID: UInt64) async throws -> [Review] {
        try await context.database.read { connection in
            try connection.query(
                "SELECT \(Review.columns) FROM evm_reviews WHERE chain = \(chain) AND listing_id = \(Int64(listingID)) ORDER BY created_at"
            ).map(Review.init)
        }
    }

    /// The reviews of `address` as a party of sales, and their average to two decimals (exact:
    /// integer arithmetic, rounded half up).
    func rating(of address: String) async throws -> Rating {
        try await context.database.read { connection in
            let row = try connection.queryFirst(
                "SELECT count(*) AS n, coalesce(sum(rating), 0) AS total FROM evm_reviews WHERE reviewee_address = \(address)"
            )
            let count = try row?.int("n") ?? 0
            let total = try row?.int("total") ?? 0
            guard count > 0 else { return Rating(address: address, count: 0, average: nil) }
            let hundredths = (total * 100 * 2 + count) / (count * 2)
            return Rating(address: address, count: Int(count), average: "\(hundredths / 100).\(String(format: "%02lld", hundredths % 100))")
        }
    }
}

struct Review: Sendable, Hashable, Encodable {
    var chain: String
    var listingId: UInt64
    var reviewer: String
    var reviewee: String
    /// The reviewer's side of the sale.
    var role: String
    var rating: Int
    var text: String
    var createdAt: String

    static let columns: SQL = "chain, listing_id, reviewer_address, reviewee_address, role, rating, text, created_at"

    init(chain: String, listingId: UInt64, reviewer: String, reviewee: String, role: String, rating: Int, text: String, createdAt: String) {
        self.chain = chain
        self.listingId = listingId
        self.reviewer = reviewer
        self.reviewee = reviewee
        self.role = role
        self.rating = rating
        self.text = text
        self.createdAt = createdAt
    }

    init(_ row: SQLRow) throws {
        chain = try row.text("chain")
        listingId = UInt64(try row.int("listing_id"))
        reviewer = try row.text("reviewer_address")
        reviewee = try row.text("reviewee_address")
        role = try row.text("role")
        rating = Int(try row.int("rating"))
        text = try row.text("text")
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
    }
}

struct Rating: Sendable, Hashable, Encodable {
    var address: String
    var count: Int
    /// `4.50`; absent with no reviews.
    var average: String?
}
