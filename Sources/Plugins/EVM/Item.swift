import Foundation
import HubKernel

/// An item minted through the rail: its token on a chain, with the off-chain details the
/// marketplace shows.
struct Item: Sendable, Hashable, Encodable {
    var chain: String
    var tokenId: UInt64
    /// The holder when minted (checksummed); the chain is the truth afterwards (provenance).
    var owner: String
    /// Who minted it: receives royalties on every sale.
    var artist: String
    var mintedBy: String
    var title: String
    var description: String
    var category: String
    var uri: String
    /// Ids of the item's images (``ImageStore``), in the order the minter gave them.
    var images: [String]
    /// How the item reaches its buyer, when the minter said.
    var delivery: Delivery?
    var createdAt: String

    /// How an item reaches its buyer: Solirey's delivery methods ("Shipping", "In Person
    /// Pickup", "Online Transfer").
    enum Delivery: String, Sendable, Hashable, Encodable, CaseIterable {
        case shipping
        case pickup
        case online
    }

    static let columns: SQL = "chain, token_id, owner, artist, minted_by, title, description, category, uri, images, delivery, created_at"

    init(
        chain: String,
        tokenId: UInt64,
        owner: String,
        artist: String,
        mintedBy: String,
        title: String,
        description: String,
        category: String,
        uri: String,
        images: [String],
        delivery: Delivery?,
        createdAt: String
    ) {
        self.chain = chain
        self.tokenId = tokenId
        self.owner = owner
        self.artist = artist
        self.mintedBy = mintedBy
        self.title = title
        self.description = description
        self.category = category
        self.uri = uri
        self.images = images
        self.delivery = delivery
        self.createdAt = createdAt
    }

    init(_ row: SQLRow) throws {
        chain = try row.text("chain")
        tokenId = UInt64(try row.int("token_id"))
        owner = try row.text("owner")
        artist = try row.text("artist")
        mintedBy = try row.text("minted_by")
        title = try row.text("title")
        description = try row.text("description")
        category = try row.text("category")
        uri = try row.text("uri")
        images = try Self.images(fromJSON: try row.text("images"))
        delivery = try row.optionalText("delivery").flatMap(Delivery.init(rawValue:))
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
    }

    /// The stored form of ``images``: a JSON array of ids (a column, and a mint's details).
    static func json(images: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(images)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func images(fromJSON text: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }
}
