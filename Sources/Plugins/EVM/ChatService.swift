import Foundation
import HubKernel

/// Chat on a listing between its seller and each prospective buyer: one thread per buyer, opened
/// by the buyer's first message; the seller answers in a thread by naming its buyer. Messages and
/// read receipts are events (`evm.chat.message`, `evm.chat.read`), so the event stream delivers
/// them live. A message is text, an image (``ImageStore``), or both.
struct ChatService: Sendable {
    let context: PluginContext
    let listings: ListingsService
    let images: ImageStore

    func send(chain: String, listingID: UInt64, text: String?, image: String?, toBuyer: String?, by user: UserID) async throws -> ChatMessage {
        guard image != nil || !(text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw EVMError.invalid("text", "A message has text, an image (`image`, an uploaded image's id), or both.")
        }
        let text = try ItemsService.text(text ?? "", field: "text", max: 2_000, allowEmpty: true)
        if let image { try await images.require([image], field: "image") }
        let seller = try await sellerID(chain: chain, listingID: listingID)
        let me = user.description
        let buyer: String
        if me == seller {
            guard let toBuyer else { throw EVMError.invalid("to", "The seller names the buyer (`to`, their user id) whose thread this answers.") }
            buyer = toBuyer
        } else {
            guard toBuyer == nil || toBuyer == me else { throw EVMError.invalid("to", "A buyer writes only in their own thread with the seller.") }
            buyer = me
        }
        return try await context.write { unit in
            if me == seller {
                let opened = try unit.connection.queryFirst(
                    "SELECT seq FROM evm_messages WHERE chain = \(chain) AND listing_id = \(Int64(listingID)) AND buyer_id = \(buyer) LIMIT 1"
                )
                guard opened != nil else {
                    throw EVMError(
                        kind: .notFound,
                        errorCode: "thread_not_found",
                        message: "No buyer \(buyer.prefix(40)) has written about this listing."
                    )
                }
            }
            guard
                let row = try unit.connection.queryFirst(
                    """
                    INSERT INTO evm_messages (chain, listing_id, buyer_id, sender_id, text, image, created_at) \
                    VALUES (\(chain), \(Int64(listingID)), \(buyer), \(me), \(text), \(image), \(unit.now)) RETURNING \(ChatMessage.columns)
                    """
                )
            else { throw EVMError.invalid("text", "the message was not stored") }
            let message = try ChatMessage(row)
            try unit.emit(EVMEvents.chatMessage, subject: "\(chain):\(listingID)", data: message)
            return message
        }
    }

    /// The caller's threads on the listing: all of them for its seller, their own for anyone else.
    func messages(chain: String, listingID: UInt64, for user: UserID) async throws -> [ChatMessage] {
        let seller = try await sellerID(chain: chain, listingID: listingID)
        let me = user.description
        return try await context.database.read { connection in
            var statement: SQL =
                "SELECT \(ChatMessage.columns) FROM evm_messages WHERE chain = \(chain) AND listing_id = \(Int64(listingID))"
            if me != seller { statement = statement + " AND buyer_id = \(me)" }
            return try connection.query(statement + " ORDER BY seq").map(ChatMessage.init)
        }
    }

    /// Marks the other side's messages in a thread read (up to now): a read receipt.
    func markRead(chain: String, listingID: UInt64, buyer: String?, by user: UserID) async throws -> Int {
        let seller = try await sellerID(chain: chain, listingID: listingID)
        let me = user.description
        let thread = me == seller ? buyer : me
        guard let thread else { throw EVMError.invalid("to", "The seller names the buyer whose thread they read.") }
        return try await context.write { unit in
            let changed = try unit.connection.execute(
                """
                UPDATE evm_messages SET read_at = \(unit.now) WHERE chain = \(chain) AND listing_id = \(Int64(listingID)) \
                AND buyer_id = \(thread) AND sender_id <> \(me) AND read_at IS NULL
                """
            )
            if changed > 0 {
                try unit.emit(
                    EVMEvents.chatRead,
                    subject: "\(chain):\(listingID)",
                    data: ["buyer_id": thread, "reader_id": me, "read_at": unit.now.description]
                )
            }
            return changed
        }
    }

    /// The seller's user id: the listing's seller address as a custodial account of this hub.
    private func sellerID(chain: String, listingID: UInt64) async throws -> String {
        guard let listing = try await listings.listing(chain: chain, id: listingID) else {
            throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No such listing.")
        }
        let seller = try await context.database.read { connection in
            try connection.queryFirst("SELECT user_id FROM evm_accounts WHERE chain = \(chain) AND address = \(listing.seller)")?.text("user_id")
        }
        guard let seller else {
            throw EVMError(kind: .refused, errorCode: "seller_not_here", message: "This listing's seller has no account on this hub to chat with.")
        }
        return seller
    }
}

struct ChatMessage: Sendable, Hashable, Encodable {
    var id: Int64
    var chain: String
    var listingId: UInt64
    /// The thread: the prospective buyer's user id.
    var buyerId: String
    var senderId: String
    /// Empty when the message is only an image.
    var text: String
    /// The id of the message's image (``ImageStore``), if it has one.
    var image: String?
    var createdAt: String
    var readAt: String?

    static let columns: SQL = "seq, chain, listing_id, buyer_id, sender_id, text, image, created_at, read_at"

    init(_ row: SQLRow) throws {
        id = try row.int("seq")
        chain = try row.text("chain")
        listingId = UInt64(try row.int("listing_id"))
        buyerId = try row.text("buyer_id")
        senderId = try row.text("sender_id")
        text = try row.text("text")
        image = try row.optionalText("image")
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
        readAt = try row.decode("read_at", as: LedgerTimestamp?.self)?.description
    }
}
