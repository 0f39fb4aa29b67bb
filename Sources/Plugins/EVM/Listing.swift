import ChainKit
import HubKernel

/// A marketplace listing as the contract's `listing(id)` returns it (contracts/evm/README.md):
/// one numbering of states for the three kinds.
struct Listing: Sendable, Hashable, Encodable {
    enum Kind: String, Sendable, Codable, CaseIterable {
        case escrow, auction, sale

        init?(code: UInt8) {
            switch code {
            case 1: self = .escrow
            case 2: self = .auction
            case 3: self = .sale
            default: return nil
            }
        }
    }

    static let states = ["none", "open", "locked", "transferred", "completed", "cancelled", "refunded"]

    var chain: String
    var listingId: UInt64
    var kind: Kind
    var state: String
    var seller: String
    var buyer: String?
    var tokenId: UInt64
    /// Decimal text of the chain's smallest unit: escrow price, auction reserve, sale price.
    var price: String
    var highestBid: String
    /// Unix seconds: an auction's end (moved by extensions), an escrow's delivery deadline once paid.
    var deadline: UInt64
    var updatedAt: String

    static let columns: SQL = "chain, listing_id, kind, state, seller, buyer, token_id, price, highest_bid, deadline, updated_at"

    init(_ row: SQLRow) throws {
        chain = try row.text("chain")
        listingId = UInt64(try row.int("listing_id"))
        guard let kind = Kind(rawValue: try row.text("kind")) else { throw EVMError.invalid("kind", "unknown listing kind") }
        self.kind = kind
        state = try row.text("state")
        seller = try row.text("seller")
        buyer = try row.optionalText("buyer")
        tokenId = UInt64(try row.int("token_id"))
        price = try row.text("price")
        highestBid = try row.text("highest_bid")
        deadline = UInt64(try row.int("deadline"))
        updatedAt = try row.decode("updated_at", as: LedgerTimestamp.self).description
    }

    /// Decodes `listing(id)`'s eight words.
    init(chain: String, listingID: UInt64, returned data: [UInt8]) throws {
        let values = try ABI.decode(
            [.uint(bits: 8), .uint(bits: 8), .address, .address, .uint(bits: 256), .uint(bits: 256), .uint(bits: 256), .uint(bits: 256)],
            data
        )
        guard values.count == 8, case .uint(let kindCode) = values[0], case .uint(let stateCode) = values[1],
            case .address(let seller) = values[2], case .address(let buyer) = values[3], case .uint(let token) = values[4],
            case .uint(let price) = values[5], case .uint(let highest) = values[6], case .uint(let deadline) = values[7],
            let kind = Kind(code: UInt8(truncatingIfNeeded: kindCode.low)), stateCode.low < UInt128(Self.states.count),
            token.high == 0, token.low <= UInt128(UInt64.max), deadline.high == 0, deadline.low <= UInt128(UInt64.max)
        else { throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No listing \(listingID) on '\(chain)'.") }
        self.chain = chain
        self.listingId = listingID
        self.kind = kind
        self.state = Self.states[Int(stateCode.low)]
        self.seller = seller.checksummed
        self.buyer = buyer.bytes.allSatisfy { $0 == 0 } ? nil : buyer.checksummed
        self.tokenId = UInt64(token.low)
        self.price = price.description
        self.highestBid = highest.description
        self.deadline = UInt64(deadline.low)
        self.updatedAt = ""
    }
}
