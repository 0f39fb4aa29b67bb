import HubKernel

/// The rail's events (`evm.*`), appended in the unit of work that makes the change. `subject` is
/// the account's address, the operation's id or the item's `chain:token id`.
enum EVMEvents {
    static let accountCreated = "evm.account.created"
    static let accountExported = "evm.account.exported"
    static let operationSubmitted = "evm.operation.submitted"
    static let operationConfirmed = "evm.operation.confirmed"
    static let operationFailed = "evm.operation.failed"
    static let contractDeployed = "evm.contract.deployed"
    static let itemMinted = "evm.item.minted"
    static let listingCreated = "evm.listing.created"
    static let listingPurchased = "evm.listing.purchased"
    static let listingTransferred = "evm.listing.transferred"
    static let listingCancelled = "evm.listing.cancelled"
    static let listingRefunded = "evm.listing.refunded"
    static let listingEnded = "evm.listing.ended"
    static let bidPlaced = "evm.bid.placed"
    static let saleCompleted = "evm.sale.completed"
    static let reviewCreated = "evm.review.created"
    static let chatMessage = "evm.chat.message"
    static let chatRead = "evm.chat.read"

    static let all = [
        accountCreated, accountExported, operationSubmitted, operationConfirmed, operationFailed, contractDeployed, itemMinted,
        listingCreated, listingPurchased, listingTransferred, listingCancelled, listingRefunded, listingEnded, bidPlaced, saleCompleted,
        reviewCreated, chatMessage, chatRead,
    ]

    /// The event of a confirmed action on a listing; a sale's completion adds ``saleCompleted``.
    static func listingEvent(action: String) -> String? {
        switch action {
        case "create": listingCreated
        case "purchase": listingPurchased
        case "transfer": listingTransferred
        case "cancel", "abort": listingCancelled
        case "refund": listingRefunded
        case "end": listingEnded
        case "bid": bidPlaced
        default: nil  // buy, confirm: the sale's completion says it
        }
    }

    struct AccountData: Encodable {
        var account: CustodialAccount

        init(_ account: CustodialAccount) { self.account = account }
    }

    struct OperationData: Encodable {
        var operation: EVMOperation
    }

    struct ListingData: Encodable {
        var listing: Listing
        var operationId: String
    }

    struct ItemData: Encodable {
        var item: Item
        var operationId: String
    }
}
