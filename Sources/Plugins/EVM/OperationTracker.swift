import ChainKit
import Foundation
import HubKernel
import Logging
import ServiceLifecycle

/// Follows the rail's pending operations to the end: a receipt with enough confirmations settles
/// one (`confirmed` and its effects, such as the minted item, or `failed` when it reverted), all in
/// one unit of work that only a still-pending operation passes, so instances tracking together
/// apply each once. A transaction the node does not know (it restarted, a reorganisation dropped
/// it, or the hub crashed before sending) is sent again from its stored bytes: the same signed
/// transaction, so it can never be applied twice.
struct OperationTracker: Service {
    let context: PluginContext
    let chains: EVMChains
    /// Replaces transactions stuck on external chains (``EVMChainSettings/replaceAfterSeconds``).
    var replacer: TransactionReplacer?
    var interval: Duration = .milliseconds(100)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await trackOnce()
                } catch is CancellationError {
                    return
                } catch {
                    context.logger.info("evm operation tracking failed; retrying", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    struct Pending: Sendable {
        var id: String
        var chain: String
        var kind: String
        var from: String
        var txHash: String
        var raw: [UInt8]
        var details: [String: String]
        /// When the operation's transaction was last sent or replaced.
        var updatedAt: LedgerTimestamp
    }

    func trackOnce() async throws {
        let pending = try await context.database.read { connection in
            try connection.query(
                "SELECT id, chain, kind, from_address, tx_hash, raw, details, updated_at FROM evm_operations WHERE state = 'pending' ORDER BY created_at LIMIT 200"
            ).map { row in
                Pending(
                    id: try row.text("id"),
                    chain: try row.text("chain"),
                    kind: try row.text("kind"),
                    from: try row.text("from_address"),
                    txHash: try row.text("tx_hash"),
                    raw: try row.bytes("raw"),
                    details: (try? JSONDecoder().decode([String: String].self, from: Data(try row.text("details").utf8))) ?? [:],
                    updatedAt: try row.decode("updated_at", as: LedgerTimestamp.self)
                )
            }
        }
        for operation in pending {
            guard let chain = try? chains.settings(operation.chain), let client = try? chains.client(chain) else { continue }
            try await track(operation, chain: chain, client: client)
        }
    }

    private func track(_ operation: Pending, chain: EVMChainSettings, client: ChainClient) async throws {
        var receipt = try await client.call("eth_getTransactionReceipt", [operation.txHash]) as? [String: Any]
        var minedHash = operation.txHash
        if receipt == nil {
            // A replaced transaction may still be the one a block includes.
            for earlier in try await replacedHashes(operation.id) {
                if let found = try await client.call("eth_getTransactionReceipt", [earlier]) as? [String: Any] {
                    (receipt, minedHash) = (found, earlier)
                    break
                }
            }
        }
        guard let receipt else {
            if try await client.call("eth_getTransactionByHash", [operation.txHash]) is NSNull {
                _ = try? await client.call("eth_sendRawTransaction", [Hex.encode(operation.raw)])
            } else if let replacer, chain.replaceAfterSeconds > 0,
                context.clock.now().nanoseconds > operation.updatedAt.nanoseconds + UInt64(chain.replaceAfterSeconds) * 1_000_000_000
            {
                try await replacer.replace(operation, chain: chain, client: client)
            }
            return
        }
        guard let blockText = receipt["blockNumber"] as? String, let block = ChainClient.quantity(blockText) else { return }
        if chain.confirmations > 0 {
            let head = try await client.quantity("eth_blockNumber")
            guard head >= block + UInt64(chain.confirmations) else { return }
        }
        let succeeded = (receipt["status"] as? String) == "0x1"
        let txHash = minedHash
        let effects = succeeded ? try await Effects.read(operation: operation, receipt: receipt, chain: chain, client: client) : nil
        try await context.write { unit in
            let changed = try unit.connection.execute(
                """
                UPDATE evm_operations SET state = \(succeeded ? "confirmed" : "failed"), block_number = \(Int64(block)), tx_hash = \(txHash), \
                result = \(effects?.resultJSON), error = \(succeeded ? nil : "reverted"), updated_at = \(unit.now) \
                WHERE id = \(operation.id) AND state = 'pending'
                """
            )
            guard changed == 1 else { return }
            try effects?.apply(on: unit, operation: operation, chain: chain)
            if let settled = try EVMOperation.find(operation.id, on: unit.connection) {
                try unit.emit(
                    succeeded ? EVMEvents.operationConfirmed : EVMEvents.operationFailed,
                    subject: operation.id,
                    data: EVMEvents.OperationData(operation: settled)
                )
            }
        }
    }

    private func replacedHashes(_ operationID: String) async throws -> [String] {
        try await context.database.read { connection in
            try connection.query("SELECT tx_hash FROM evm_transaction_attempts WHERE operation_id = \(operationID) ORDER BY replaced_at")
                .map { try $0.text("tx_hash") }
        }
    }

    /// What a confirmed operation changes besides its own row.
    enum Effects {
        case deployed(name: String, address: EthereumAddress)
        case minted(Item)
        /// A listing as the chain says after the operation, the token's owner now, and what was done.
        case listing(Listing, owner: String, action: String, money: ListingMoney?)
        case lecture(LectureEffect)
        /// A contract paid out what it owed `payee` (its `Withdrawn` log).
        case withdrawn(payee: EthereumAddress, amount: UInt256, contract: EthereumAddress)
        case none

        /// An indexed `uint256` topic (a token or listing id) that fits 64 bits.
        static func uint64(topic: String) -> UInt64? {
            guard let word = try? Hex.decode(topic, length: 32), word.prefix(24).allSatisfy({ $0 == 0 }) else { return nil }
            return word.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }

        static let mintedTopic = Hex.encode(ABI.eventTopic("Minted(uint256,address,string)"))

        /// Reads what a confirmed operation produced: from its receipt, and for a listing from the
        /// chain (the listing and the token's owner at the latest block).
        static func read(operation: Pending, receipt: [String: Any], chain: EVMChainSettings, client: ChainClient) async throws -> Effects {
            if operation.kind == "withdraw" || operation.kind == "lecture.withdraw" {
                return Self(withdrawal: receipt)
            }
            if operation.kind.hasPrefix("lecture.") {
                return try await LectureEffect.read(operation: operation, receipt: receipt, chain: chain, client: client).map(Effects.lecture)
                    ?? .none
            }
            guard operation.kind.hasPrefix("listing.") else { return try Effects(operation: operation, receipt: receipt, chain: chain) }
            let action = String(operation.kind.dropFirst("listing.".count))
            let logs = receipt["logs"] as? [[String: Any]] ?? []
            guard let marketText = receipt["to"] as? String, let market = try? EthereumAddress(marketText) else {
                throw EVMError.invalid("receipt", "a listing operation's receipt names no contract")
            }
            var listingID = operation.details["listing_id"].flatMap { UInt64($0) }
            if listingID == nil,
                let log = logs.first(where: {
                    ($0["address"] as? String)?.lowercased() == market.description && (($0["topics"] as? [String])?.count ?? 0) >= 2
                }),
                let topic = (log["topics"] as? [String])?[1], let id = Self.uint64(topic: topic)
            {
                listingID = id
            }
            guard let listingID else { throw EVMError.invalid("receipt", "a new listing's receipt names no listing id") }
            let returned = try await client.ethCall(
                to: market,
                data: try ABI.calldata("listing(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(listingID))])
            )
            let listing = try Listing(chain: chain.id, listingID: listingID, returned: returned)
            let tokenAddress = try await client.ethCall(to: market, data: try ABI.calldata("token()", types: [], values: []))
            guard case .address(let token) = try ABI.decode([.address], tokenAddress).first else {
                throw EVMError.chainUnavailable(chain.id, "the marketplace names no token")
            }
            let ownerWord = try await client.ethCall(
                to: token,
                data: try ABI.calldata("ownerOf(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(listing.tokenId))])
            )
            guard case .address(let owner) = try ABI.decode([.address], ownerWord).first else {
                throw EVMError.chainUnavailable(chain.id, "ownerOf did not answer an address")
            }
            let money =
                ContractLedger.mirrors(chain)
                ? try await ListingMoney.read(operation: operation, listing: listing, market: market, token: token, receipt: receipt, client: client)
                : nil
            return .listing(listing, owner: owner.checksummed, action: action, money: money)
        }

        static let withdrawnTopic = Hex.encode(ABI.eventTopic("Withdrawn(address,uint256)"))

        /// The `Withdrawn(account, amount)` log of the contract the receipt's transaction called.
        init(withdrawal receipt: [String: Any]) {
            let logs = receipt["logs"] as? [[String: Any]] ?? []
            guard let contract = (receipt["to"] as? String).flatMap({ try? EthereumAddress($0) }),
                let log = logs.first(where: {
                    ($0["address"] as? String)?.lowercased() == contract.description && ($0["topics"] as? [String])?.first == Self.withdrawnTopic
                }),
                let topics = log["topics"] as? [String], topics.count == 2,
                let payee = try? EthereumAddress(bytes: Array(try Hex.decode(topics[1]).suffix(20))),
                let data = (log["data"] as? String).flatMap({ try? Hex.decode($0) }), let amount = try? UInt256(bigEndian: data)
            else {
                self = .none
                return
            }
            self = .withdrawn(payee: payee, amount: amount, contract: contract)
        }

        init(operation: Pending, receipt: [String: Any], chain: EVMChainSettings) throws {
            switch operation.kind {
            case "deploy":
                guard let text = receipt["contractAddress"] as? String, let address = try? EthereumAddress(text) else {
                    throw EVMError.invalid("receipt", "a deployment's receipt names no contract address")
                }
                self = .deployed(name: operation.details["name"] ?? "", address: address)
            case "mint":
                let logs = receipt["logs"] as? [[String: Any]] ?? []
                guard let log = logs.first(where: { ($0["topics"] as? [String])?.first == Self.mintedTopic }),
                    let topics = log["topics"] as? [String], topics.count == 3,
                    let tokenID = Self.uint64(topic: topics[1]),
                    let artist = try? EthereumAddress(bytes: Array(try Hex.decode(topics[2]).suffix(20)))
                else { throw EVMError.invalid("receipt", "a mint's receipt has no Minted log") }
                self = .minted(
                    Item(
                        chain: chain.id,
                        tokenId: tokenID,
                        owner: operation.details["owner"] ?? artist.checksummed,
                        artist: artist.checksummed,
                        mintedBy: operation.details["user_id"] ?? "",
                        title: operation.details["title"] ?? "",
                        description: operation.details["description"] ?? "",
                        category: operation.details["category"] ?? "",
                        uri: operation.details["uri"] ?? "",
                        images: (try? Item.images(fromJSON: operation.details["images"] ?? "[]")) ?? [],
                        delivery: operation.details["delivery"].flatMap(Item.Delivery.init(rawValue:)),
                        createdAt: ""
                    )
                )
            default:
                self = .none
            }
        }

        var resultJSON: String? {
            switch self {
            case .deployed(_, let address): #"{"address":"\#(address.checksummed)"}"#
            case .minted(let item): #"{"token_id":"\#(item.tokenId)"}"#
            case .listing(let listing, _, _, _): #"{"listing_id":"\#(listing.listingId)","state":"\#(listing.state)"}"#
            case .lecture(let effect): effect.resultJSON
            case .withdrawn(_, let amount, _): #"{"amount":"\#(amount)"}"#
            case .none: nil
            }
        }

        func apply(on unit: UnitOfWork, operation: Pending, chain: EVMChainSettings) throws {
            let operationID = operation.id
            switch self {
            case .deployed(let name, let address):
                let chain = try unit.connection.queryFirst("SELECT chain FROM evm_operations WHERE id = \(operationID)")?.text("chain") ?? ""
                try unit.connection.execute(
                    """
                    INSERT INTO evm_contracts (chain, name, address, operation_id, deployed_at) \
                    VALUES (\(chain), \(name), \(address.checksummed), \(operationID), \(unit.now)) ON CONFLICT (chain, name) DO NOTHING
                    """
                )
                try unit.emit(EVMEvents.contractDeployed, subject: "\(chain):\(name)", data: ["name": name, "address": address.checksummed])
            case .minted(var item):
                try unit.connection.execute(
                    """
                    INSERT INTO evm_items (chain, token_id, owner, artist, minted_by, title, description, category, uri, images, delivery, \
                    operation_id, created_at) VALUES (\(item.chain), \(Int64(item.tokenId)), \(item.owner), \(item.artist), \(item.mintedBy), \
                    \(item.title), \(item.description), \(item.category), \(item.uri), \(Item.json(images: item.images)), \(item.delivery?.rawValue), \
                    \(operationID), \(unit.now))
                    """
                )
                item.createdAt = unit.now.description
                try unit.emit(
                    EVMEvents.itemMinted,
                    subject: "\(item.chain):\(item.tokenId)",
                    data: EVMEvents.ItemData(item: item, operationId: operationID)
                )
            case .listing(let listing, let owner, let action, let money):
                if let money {
                    var ledger = ContractLedger(unit: unit, chain: chain, txHash: operation.txHash, kind: operation.kind)
                    try money.mirror(listing, in: &ledger)
                }
                try unit.connection.execute(
                    """
                    INSERT INTO evm_listings (chain, listing_id, kind, state, seller, buyer, token_id, price, highest_bid, deadline, created_at, updated_at) \
                    VALUES (\(listing.chain), \(Int64(listing.listingId)), \(listing.kind.rawValue), \(listing.state), \(listing.seller), \(listing.buyer), \
                    \(Int64(listing.tokenId)), \(listing.price), \(listing.highestBid), \(Int64(listing.deadline)), \(unit.now), \(unit.now)) \
                    ON CONFLICT (chain, listing_id) DO UPDATE SET state = excluded.state, buyer = excluded.buyer, price = excluded.price, \
                    highest_bid = excluded.highest_bid, deadline = excluded.deadline, updated_at = excluded.updated_at
                    """
                )
                try unit.connection.execute(
                    "UPDATE evm_items SET owner = \(owner) WHERE chain = \(listing.chain) AND token_id = \(Int64(listing.tokenId))"
                )
                var stored = listing
                stored.updatedAt = unit.now.description
                let data = EVMEvents.ListingData(listing: stored, operationId: operationID)
                let subject = "\(listing.chain):\(listing.listingId)"
                if let type = EVMEvents.listingEvent(action: action) { try unit.emit(type, subject: subject, data: data) }
                if listing.state == "completed" { try unit.emit(EVMEvents.saleCompleted, subject: subject, data: data) }
            case .lecture(let effect):
                try effect.apply(on: unit, operation: operation, chain: chain)
            case .withdrawn(let payee, let amount, let contract):
                guard ContractLedger.mirrors(chain) else { break }
                var ledger = ContractLedger(unit: unit, chain: chain, txHash: operation.txHash, kind: operation.kind)
                try ledger.withdraw(amount, by: payee, from: contract)
            case .none:
                break
            }
        }
    }
}
