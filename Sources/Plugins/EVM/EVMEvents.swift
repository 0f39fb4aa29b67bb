import HubKernel

/// The rail's events (`evm.*`), appended in the unit of work that makes the change. `subject` is
/// the account's address, the operation's id or the item's `chain:token id`.
enum EVMEvents {
    static let accountCreated = "evm.account.created"
    static let accountExported = "evm.account.exported"
    static let operationSubmitted = "evm.operation.submitted"
    static let operationConfirmed = "evm.operation.confirmed"
    static let operationFailed = "evm.operation.failed"
    static let operationReplaced = "evm.operation.replaced"
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
    static let lectureCreated = "evm.lecture.created"
    static let lectureRerun = "evm.lecture.rerun"
    static let lecturePurchased = "evm.lecture.purchased"
    static let lectureAttendance = "evm.lecture.attendance"
    static let lectureEvaluated = "evm.lecture.evaluated"
    static let lectureSettled = "evm.lecture.settled"
    static let lectureCancelled = "evm.lecture.cancelled"
    static let lectureRefunded = "evm.lecture.refunded"

    static let all = [
        accountCreated, accountExported, operationSubmitted, operationConfirmed, operationFailed, operationReplaced, contractDeployed, itemMinted,
        listingCreated, listingPurchased, listingTransferred, listingCancelled, listingRefunded, listingEnded, bidPlaced, saleCompleted,
        reviewCreated, chatMessage, chatRead, lectureCreated, lectureRerun, lecturePurchased, lectureAttendance, lectureEvaluated,
        lectureSettled, lectureCancelled, lectureRefunded,
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

    /// The event of a confirmed action on a lecture (`subject` is `chain:lecture id`).
    static func lectureEvent(action: String) -> String? {
        switch action {
        case "create": lectureCreated
        case "rerun": lectureRerun
        case "purchase": lecturePurchased
        case "attendance": lectureAttendance
        case "evaluate": lectureEvaluated
        case "settle": lectureSettled
        case "cancel": lectureCancelled
        case "refund": lectureRefunded
        default: nil
        }
    }

    struct AccountData: Encodable {
        var account: CustodialAccount

        init(_ account: CustodialAccount) { self.account = account }
    }

    struct OperationData: Encodable {
        var operation: EVMOperation
    }

    /// A stuck transaction replaced: the operation with its new hash, the hash it replaced.
    struct ReplacementData: Encodable {
        var operation: EVMOperation
        var replacedTxHash: String
        var gasPrice: String
    }

    struct ListingData: Encodable {
        var listing: Listing
        var operationId: String
    }

    struct ItemData: Encodable {
        var item: Item
        var operationId: String
    }

    /// A lecture's change: the run it concerns as it now stands, and the seat it touched.
    struct LectureData: Encodable {
        var chain: String
        var lectureId: UInt64
        var operationId: String
        var run: LectureRun?
        var seat: LectureSeat?
    }
}
