import ChainKit
import Foundation
import HubKernel

/// The marketplace's money on an external chain, mirrored in the ledger after each confirmed
/// operation on a listing (``ContractLedger``): what the listing's state says is locked (an
/// escrow's deposits, an auction's highest bid) is held from its payer for the contract; what is
/// no longer locked stays with the contract; and each party's account at the contract is brought
/// to what the contract says it owes them (`pendingWithdrawal`), read at the operation's block.
/// Reconciling with the contract's own figures, rather than repeating its fee arithmetic, keeps
/// the ledger right whatever the contract paid out, including to payments made outside the hub.
struct ListingMoney: Sendable {
    var market: EthereumAddress
    /// Who sent the operation, and what it paid in.
    var sender: EthereumAddress
    var value: UInt256
    /// What the contract owes each party of the listing, at the operation's block.
    var owed: [EthereumAddress: UInt256]

    static func read(
        operation: OperationTracker.Pending,
        listing: Listing,
        market: EthereumAddress,
        token: EthereumAddress,
        receipt: [String: Any],
        client: ChainClient
    ) async throws -> ListingMoney {
        let block = receipt["blockNumber"] as? String ?? "latest"
        let sender = try EthereumAddress(operation.from)
        var parties: Set<EthereumAddress> = [sender, try EthereumAddress(listing.seller)]
        if let buyer = listing.buyer { parties.insert(try EthereumAddress(buyer)) }
        // Whom the listing named in the block before (a bidder this operation outbid) is owed
        // what it held; a bid outbid in its own block is its sender's, read above.
        if let previousBuyer = try await buyer(of: listing, in: market, before: block, client: client) { parties.insert(previousBuyer) }
        let platformWord = try await client.ethCall(to: market, data: try ABI.calldata("platform()", types: [], values: []), block: block)
        if case .address(let platform)? = try ABI.decode([.address], platformWord).first { parties.insert(platform) }
        let royalty = try await client.ethCall(
            to: token,
            data: try ABI.calldata(
                "royaltyInfo(uint256,uint256)",
                types: [.uint(bits: 256), .uint(bits: 256)],
                values: [.uint(UInt256(listing.tokenId)), .uint(UInt256(1))]
            ),
            block: block
        )
        if case .address(let artist)? = try ABI.decode([.address, .uint(bits: 256)], royalty).first, !artist.bytes.allSatisfy({ $0 == 0 }) {
            parties.insert(artist)
        }
        var owed: [EthereumAddress: UInt256] = [:]
        for party in parties {
            owed[party] = try await client.pendingWithdrawal(market, of: party, block: block)
        }
        let value = try operation.details["value"].map { try UInt256(decimal: $0) } ?? .zero
        return ListingMoney(market: market, sender: sender, value: value, owed: owed)
    }

    /// The listing's buyer (an auction's highest bidder) at the block before `block`, if any.
    static func buyer(of listing: Listing, in market: EthereumAddress, before block: String, client: ChainClient) async throws -> EthereumAddress? {
        guard let number = UInt64(block.dropFirst(2), radix: 16), block.hasPrefix("0x"), number > 0 else { return nil }
        let returned = try await client.ethCall(
            to: market,
            data: try ABI.calldata("listing(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(listing.listingId))]),
            block: "0x" + String(number - 1, radix: 16)
        )
        // Before its first block the listing does not exist: no buyer.
        guard let previous = try? Listing(chain: listing.chain, listingID: listing.listingId, returned: returned) else { return nil }
        return try previous.buyer.map(EthereumAddress.init)
    }

    struct Hold: Hashable {
        var payer: String
        var amount: UInt256
        var role: String
    }

    /// What a listing in this state keeps locked in the contract, by payer.
    static func locked(_ listing: Listing) -> [Hold] {
        guard let price = try? UInt256(decimal: listing.price) else { return [] }
        switch (listing.kind, listing.state) {
        case (.escrow, "open"):
            return [Hold(payer: listing.seller, amount: price, role: "deposit")]
        case (.escrow, "locked"), (.escrow, "transferred"):
            guard let buyer = listing.buyer else { return [Hold(payer: listing.seller, amount: price, role: "deposit")] }
            return [
                Hold(payer: listing.seller, amount: price, role: "deposit"),
                Hold(payer: buyer, amount: price.addingReportingOverflow(price).partialValue, role: "payment"),
            ]
        case (.auction, "open"):
            guard let bidder = listing.buyer, let bid = try? UInt256(decimal: listing.highestBid), !bid.isZero else { return [] }
            return [Hold(payer: bidder, amount: bid, role: "bid")]
        default:
            return []
        }
    }

    func name(_ hold: Hold, of listing: Listing) -> String {
        "listing:\(listing.chain):\(market.checksummed):\(listing.listingId):\(hold.role):\(hold.payer):\(hold.amount)"
    }

    /// Applies the listing's new state to the ledger, before the rail's index row changes (that
    /// row is the state the previous confirmed operation left).
    func mirror(_ listing: Listing, in ledger: inout ContractLedger) throws {
        let before = try ledger.unit.connection.queryFirst(
            "SELECT \(Listing.columns) FROM evm_listings WHERE chain = \(listing.chain) AND listing_id = \(Int64(listing.listingId))"
        ).map(Listing.init)
        let wanted = Set(Self.locked(listing))
        // Released locks stay with the contract, which now owes them to someone (credited below).
        for hold in before.map(Self.locked) ?? [] where !wanted.contains(hold) {
            try ledger.capture(hold: name(hold, of: listing))
        }
        // The sender's own payment: held while the listing keeps it locked, else the contract's at once.
        if !value.isZero {
            if let hold = wanted.first(where: { $0.payer == sender.checksummed && $0.amount == value }) {
                try ledger.lock(value, from: sender, in: market, hold: name(hold, of: listing))
            } else {
                try ledger.pay(value, from: sender, into: market)
            }
        }
        for (party, amount) in owed.sorted(by: { $0.key.checksummed < $1.key.checksummed }) {
            try ledger.settleOwed(party, at: market, to: amount)
        }
    }
}
