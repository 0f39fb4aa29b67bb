import ChainKit
import Foundation
import HubKernel

/// The marketplace's three sale formats (escrow, English auction, direct sale) on the chain's
/// `Marketplace` contract, each write an operation sent from the caller's custodial account. The
/// contract holds the rules; a call it would refuse (wrong owner, wrong state, wrong amount) is
/// refused before anything is signed. After each confirmed operation the tracker reads the
/// listing back from the chain (``OperationTracker``), so the rail's index follows the chain.
struct ListingsService: Sendable {
    let context: PluginContext
    let chains: EVMChains
    let accounts: CustodialAccounts
    let contracts: MarketplaceContracts
    let sender: TransactionSender

    enum Action: String, Sendable, CaseIterable {
        case buy, cancel, purchase, transfer, confirm, abort, refund, bid, end

        /// The contract function for this action on a listing of `kind`, or `nil` when the kind
        /// has no such action.
        func function(for kind: Listing.Kind) -> String? {
            switch (kind, self) {
            case (.sale, .buy): "buy(uint256)"
            case (.sale, .cancel): "cancelListing(uint256)"
            case (.escrow, .purchase): "confirmPurchase(uint256)"
            case (.escrow, .transfer): "transferItem(uint256)"
            case (.escrow, .confirm): "confirmReceived(uint256)"
            case (.escrow, .abort): "abort(uint256)"
            case (.escrow, .refund): "refundEscrow(uint256)"
            case (.auction, .bid): "bid(uint256)"
            case (.auction, .end): "endAuction(uint256)"
            case (.auction, .cancel): "cancelAuction(uint256)"
            default: nil
            }
        }
    }

    struct NewListing: Sendable {
        var kind: Listing.Kind
        var chain: String?
        var tokenID: UInt64
        /// Escrow price, auction reserve or sale price, in the chain's smallest unit.
        var price: UInt256
        /// Auctions: when bidding ends (Unix seconds).
        var endTime: UInt64?
    }

    /// The longest auction the rail starts, in seconds.
    static let longestAuction: UInt64 = 366 * 86_400

    func create(_ new: NewListing, by user: UserID) async throws -> EVMWriteResult {
        guard !new.price.isZero else { throw EVMError.invalid("price", "A price is more than zero.") }
        if new.kind == .auction {
            let now = UInt64(Date().timeIntervalSince1970)
            guard let end = new.endTime, end > now else {
                throw EVMError.invalid("end_time", "An auction needs an end_time in the future (Unix seconds).")
            }
            // A bound keeps a typo (milliseconds for seconds) from locking a token in escrow for ages.
            guard end - now <= Self.longestAuction else {
                throw EVMError.invalid("end_time", "An auction ends within \(Self.longestAuction / 86_400) days.")
            }
        }
        let chain = try chains.settings(new.chain)
        let client = try chains.client(chain)
        let market = try await contracts.marketplace(on: chain, client: client)
        let token = try await contracts.itemToken(on: chain, client: client)
        let signer = try await accounts.signer(user: user, chain: chain.id)
        let seller = signer.address
        // Checked before the approval is sent, so a refused listing sends nothing at all.
        let ownerWord = try await client.ethCall(
            to: token,
            data: try ABI.calldata("ownerOf(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(new.tokenID))])
        )
        guard case .address(let owner)? = try? ABI.decode([.address], ownerWord).first, owner == seller else {
            throw EVMError(kind: .forbidden, errorCode: "not_owner", message: "Token \(new.tokenID) is not held by your account.", field: "token_id")
        }
        // The marketplace may move the owner's tokens (`setApprovalForAll`), approved once per
        // account. A wallet of the user's own is handed the approval to sign first, and lists once
        // it is confirmed; the hub's own signature is waited for (the listing's call checks it).
        if try await !isApproved(market, token: token, owner: seller, client: client) {
            let approval = TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "approve",
                subject: token.checksummed,
                to: token,
                data: try ABI.calldata("setApprovalForAll(address,bool)", types: [.address, .bool], values: [.address(market), .bool(true)])
            )
            guard case .custodial(let address, let key) = signer else { return try await sender.dispatch(approval, by: signer) }
            let operation = try await sender.send(approval, privateKey: key, from: address)
            try await waitForApproval(operation, market: market, token: token, owner: seller, client: client)
        }
        let tokenID = ABIValue.uint(UInt256(new.tokenID))
        let (signature, types, values, value): (String, [ABIType], [ABIValue], UInt256) =
            switch new.kind {
            case .sale: ("listForSale(uint256,uint256)", [.uint(bits: 256), .uint(bits: 256)], [tokenID, .uint(new.price)], .zero)
            case .escrow: ("createEscrow(uint256,uint256)", [.uint(bits: 256), .uint(bits: 256)], [tokenID, .uint(new.price)], new.price)
            case .auction:
                (
                    "createAuction(uint256,uint256,uint256)", [.uint(bits: 256), .uint(bits: 256), .uint(bits: 256)],
                    [tokenID, .uint(new.price), .uint(UInt256(new.endTime ?? 0))], .zero
                )
            }
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "listing.create",
                subject: market.checksummed,
                details: ["kind": new.kind.rawValue, "token_id": String(new.tokenID)],
                to: market,
                value: value,
                data: try ABI.calldata(signature, types: types, values: values)
            ),
            by: signer
        )
    }

    /// An action on listing `listingID`: the amount sent is the contract's own figure (the sale
    /// price, twice the escrow price) except for a bid, which names its `amount`.
    func act(_ action: Action, chain chainName: String, listingID: UInt64, amount: UInt256?, by user: UserID) async throws -> EVMWriteResult {
        let chain = try chains.settings(chainName)
        let client = try chains.client(chain)
        let market = try await contracts.marketplace(on: chain, client: client)
        let listing = try await read(listingID, market: market, chain: chain, client: client)
        guard let function = action.function(for: listing.kind) else {
            throw EVMError(
                kind: .refused,
                errorCode: "wrong_kind",
                message: "A listing of kind \(listing.kind.rawValue) has no action '\(action.rawValue)'.",
                field: "action"
            )
        }
        let value: UInt256
        switch action {
        case .buy: value = try UInt256(decimal: listing.price)
        case .purchase:
            let price = try UInt256(decimal: listing.price)
            value = price.addingReportingOverflow(price).partialValue
        case .bid:
            guard let amount, !amount.isZero else { throw EVMError.invalid("amount", "A bid names its amount, more than zero.") }
            value = amount
        default: value = .zero
        }
        let signer = try await accounts.signer(user: user, chain: chain.id)
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "listing.\(action.rawValue)",
                subject: market.checksummed,
                details: ["listing_id": String(listingID), "action": action.rawValue],
                to: market,
                value: value,
                data: try ABI.calldata(function, types: [.uint(bits: 256)], values: [.uint(UInt256(listingID))])
            ),
            by: signer
        )
    }

    /// Collects what the marketplace owes the caller (proceeds, refunds, outbid bids).
    func withdraw(chain chainName: String?, by user: UserID) async throws -> EVMWriteResult {
        let chain = try chains.settings(chainName)
        let client = try chains.client(chain)
        let market = try await contracts.marketplace(on: chain, client: client)
        let signer = try await accounts.signer(user: user, chain: chain.id)
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "withdraw",
                subject: market.checksummed,
                to: market,
                data: try ABI.calldata("withdraw()", types: [], values: [])
            ),
            by: signer
        )
    }

    /// What the marketplace owes `address` (decimal text).
    func pendingWithdrawal(chain chainName: String?, address: EthereumAddress) async throws -> String {
        let chain = try chains.settings(chainName)
        let client = try chains.client(chain)
        let market = try await contracts.marketplace(on: chain, client: client)
        return try await client.pendingWithdrawal(market, of: address).description
    }

    func read(_ listingID: UInt64, market: EthereumAddress, chain: EVMChainSettings, client: ChainClient) async throws -> Listing {
        let data = try await client.ethCall(
            to: market,
            data: try ABI.calldata("listing(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(listingID))])
        )
        return try Listing(chain: chain.id, listingID: listingID, returned: data)
    }

    func listings(kind: String?, state: String?, limit: Int) async throws -> [Listing] {
        try await context.database.read { connection in
            var statement: SQL = "SELECT \(Listing.columns) FROM evm_listings WHERE 1 = 1"
            if let kind { statement = statement + " AND kind = \(kind)" }
            if let state { statement = statement + " AND state = \(state)" }
            return try connection.query(statement + " ORDER BY updated_at DESC, listing_id DESC LIMIT \(limit)").map(Listing.init)
        }
    }

    func listing(chain: String, id: UInt64) async throws -> Listing? {
        try await context.database.read { connection in
            try connection.queryFirst("SELECT \(Listing.columns) FROM evm_listings WHERE chain = \(chain) AND listing_id = \(Int64(id))")
                .map(Listing.init)
        }
    }

    /// Waits for the hub's approval of the marketplace to be confirmed.
    private func waitForApproval(
        _ operation: EVMOperation,
        market: EthereumAddress,
        token: EthereumAddress,
        owner: EthereumAddress,
        client: ChainClient
    ) async throws {
        for _ in 0..<600 {
            let state = try await context.database.read { try EVMOperation.find(operation.id, on: $0)?.state }
            if state == .confirmed, try await isApproved(market, token: token, owner: owner, client: client) { return }
            if state == .failed { throw EVMError(kind: .refused, errorCode: "approval_failed", message: "Approving the marketplace failed.") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw EVMError(kind: .unavailable, errorCode: "approval_pending", message: "Approving the marketplace is still under way; retry shortly.")
    }

    private func isApproved(_ market: EthereumAddress, token: EthereumAddress, owner: EthereumAddress, client: ChainClient) async throws -> Bool {
        let data = try await client.ethCall(
            to: token,
            data: try ABI.calldata("isApprovedForAll(address,address)", types: [.address, .address], values: [.address(owner), .address(market)])
        )
        return data.last == 1
    }
}
