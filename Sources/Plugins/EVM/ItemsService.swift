import ChainKit
import Foundation
import HubKernel

/// Items: minted by their owner's custodial account through the chain's item token (the caller
/// becomes the token's artist), listed and searched from the rail's records, their provenance read
/// from the chain's logs.
struct ItemsService: Sendable {
    let context: PluginContext
    let chains: EVMChains
    let accounts: CustodialAccounts
    let contracts: MarketplaceContracts
    let sender: TransactionSender
    let images: ImageStore

    struct NewItem: Sendable {
        var chain: String?
        var title: String
        var description: String
        var category: String
        var uri: String?
        /// Ids of kept images (``ImageStore``), at most ``maximumImages``.
        var images: [String] = []
        /// `shipping`, `pickup` or `online` (``Item/Delivery``), or none.
        var delivery: String?
    }

    static let maximumImages = 8

    /// Sends the mint (or prepares it for the user's own wallet); the item exists once the
    /// operation is confirmed (``OperationTracker``).
    func mint(_ new: NewItem, by user: UserID) async throws -> EVMWriteResult {
        let title = try Self.text(new.title, field: "title", max: 100)
        let description = try Self.text(new.description, field: "description", max: 2_000, allowEmpty: true)
        let category = new.category.lowercased()
        guard (1...40).contains(category.utf8.count),
            category.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D })
        else { throw EVMError.invalid("category", "A category is 1 to 40 of a-z, 0-9 and -.") }
        let uri = new.uri ?? "urn:hubd:item:\(UUID().uuidString.lowercased())"
        guard (1...256).contains(uri.utf8.count), !uri.contains(where: \.isWhitespace) else {
            throw EVMError.invalid("uri", "A metadata URI is 1 to 256 bytes without spaces.")
        }
        guard new.images.count <= Self.maximumImages else {
            throw EVMError.invalid("images", "An item shows at most \(Self.maximumImages) images.")
        }
        let delivery = try new.delivery.map { text in
            guard let delivery = Item.Delivery(rawValue: text) else {
                let known = Item.Delivery.allCases.map(\.rawValue).joined(separator: ", ")
                throw EVMError.invalid("delivery", "An item's delivery is one of \(known).")
            }
            return delivery
        }
        try await images.require(new.images, field: "images")
        let chain = try chains.settings(new.chain)
        let client = try chains.client(chain)
        let signer = try await accounts.signer(user: user, chain: chain.id, opening: true)
        let token = try await contracts.itemToken(on: chain, client: client)
        let owner = signer.address
        let data = try ABI.calldata("mint(address,string)", types: [.address, .string], values: [.address(owner), .string(uri)])
        var details = [
            "owner": owner.checksummed, "user_id": user.description, "title": title, "description": description,
            "category": category, "uri": uri, "images": Item.json(images: new.images),
        ]
        details["delivery"] = delivery?.rawValue
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "mint",
                subject: token.checksummed,
                details: details,
                to: token,
                data: data
            ),
            by: signer
        )
    }

    /// Operations, newest first: one user's, or everyone's (`nil`, for admins).
    func operations(of user: UserID?, limit: Int) async throws -> [EVMOperation] {
        try await context.database.read { connection in
            var statement: SQL = "SELECT \(EVMOperation.columns) FROM evm_operations"
            if let user { statement = statement + " WHERE user_id = \(user.description)" }
            return try connection.query(statement + " ORDER BY created_at DESC, id LIMIT \(limit)").map(EVMOperation.init)
        }
    }

    func operation(_ id: String) async throws -> EVMOperation? {
        try await context.database.read { try EVMOperation.find(id, on: $0) }
    }

    /// Items, newest first, optionally of one category or one owner.
    func items(category: String?, owner: String?, limit: Int) async throws -> [Item] {
        try await context.database.read { connection in
            var statement: SQL = "SELECT \(Item.columns) FROM evm_items WHERE 1 = 1"
            if let category { statement = statement + " AND category = \(category.lowercased())" }
            if let owner { statement = statement + " AND owner = \(owner)" }
            return try connection.query(statement + " ORDER BY created_at DESC, token_id DESC LIMIT \(limit)").map(Item.init)
        }
    }

    func item(chain: String, tokenID: UInt64) async throws -> Item? {
        try await context.database.read { connection in
            try connection.queryFirst("SELECT \(Item.columns) FROM evm_items WHERE chain = \(chain) AND token_id = \(Int64(tokenID))")
                .map(Item.init)
        }
    }

    /// Every transfer of the token (its mint first), read from the chain's `Transfer` logs.
    func provenance(of item: Item) async throws -> [ProvenanceEntry] {
        let chain = try chains.settings(item.chain)
        let client = try chains.client(chain)
        let token = try await contracts.itemToken(on: chain, client: client)
        var id = [UInt8](repeating: 0, count: 24)
        withUnsafeBytes(of: item.tokenId.bigEndian) { id.append(contentsOf: $0) }
        let logs = try await client.call(
            "eth_getLogs",
            [
                [
                    "address": token.checksummed, "fromBlock": "0x0", "toBlock": "latest",
                    "topics": [Self.transferTopic, NSNull(), NSNull(), Hex.encode(id)],
                ]
            ]
        )
        return (logs as? [[String: Any]] ?? []).compactMap { log in
            guard let topics = log["topics"] as? [String], topics.count == 4,
                let from = try? EthereumAddress(bytes: Array(try Hex.decode(topics[1]).suffix(20))),
                let to = try? EthereumAddress(bytes: Array(try Hex.decode(topics[2]).suffix(20))),
                let hash = log["transactionHash"] as? String, let block = (log["blockNumber"] as? String).flatMap(ChainClient.quantity)
            else { return nil }
            let zero = from.bytes.allSatisfy { $0 == 0 }
            return ProvenanceEntry(
                event: zero ? "minted" : "transferred",
                from: zero ? nil : from.checksummed,
                to: to.checksummed,
                txHash: hash,
                blockNumber: block
            )
        }
    }

    static let transferTopic = Hex.encode(ABI.eventTopic("Transfer(address,address,uint256)"))

    static func text(_ value: String, field: String, max: Int, allowEmpty: Bool = false) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (allowEmpty || !trimmed.isEmpty), trimmed.count <= max,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" })
        else { throw EVMError.invalid(field, "\(field) is \(allowEmpty ? 0 : 1) to \(max) characters of text.") }
        return trimmed
    }
}

/// One step of an item's history on chain.
struct ProvenanceEntry: Sendable, Hashable, Encodable {
    var event: String
    var from: String?
    var to: String
    var txHash: String
    var blockNumber: UInt64
}
