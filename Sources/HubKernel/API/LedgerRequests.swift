/// Request bodies of the ledger endpoints, decoded with `snake_case` keys.
struct CreateAssetRequest: Decodable, Sendable {
    var code: String
    var scale: UInt8
    var name: String
    var organiserId: String?
}

struct CreateAccountRequest: Decodable, Sendable {
    var id: String?
    var asset: String
    var owner: OwnerRepresentation?
    var code: String?
    var flags: [String]?
    var metadata: [String: String]?
}

/// One transfer. `action` defaults to `post`; `hold` needs `timeout_seconds` (0 = never expires);
/// `post_pending`/`void_pending` name the hold in `pending_id`.
struct TransferItemRequest: Decodable, Sendable {
    var id: String?
    var action: String?
    var debitAccountId: String?
    var creditAccountId: String?
    var amount: MinorUnits?
    var asset: String?
    var timeoutSeconds: UInt32?
    var pendingId: String?
    var linked: Bool?
    var ref: ReferenceRepresentation?
    var metadata: [String: String]?
}

struct TransferBatchRequest: Decodable, Sendable {
    var transfers: [TransferItemRequest]
}

/// Posting (optionally a smaller amount) or voiding a hold.
struct ResolvePendingRequest: Decodable, Sendable {
    var id: String?
    var amount: MinorUnits?
}

/// Parsing of the parts of requests that the ledger types check (ids, codes), with the field named.
enum LedgerRequestParsing {
    static func accountID(_ text: String?, field: String) throws -> AccountID {
        guard let text else { throw Problem.invalid(field, "This member is required.", code: "missing_field") }
        guard let id = AccountID(text), id.rawValue != 0 else { throw Problem.invalid(field, "Expected a non-zero UUID.") }
        return id
    }

    static func transferID(_ text: String?, field: String) throws -> TransferID {
        guard let text else { throw Problem.invalid(field, "This member is required.", code: "missing_field") }
        guard let id = TransferID(text), id.rawValue != 0 else { throw Problem.invalid(field, "Expected a non-zero UUID.") }
        return id
    }

    static func assetCode(_ text: String?, field: String) throws -> AssetCode {
        guard let text else { throw Problem.invalid(field, "This member is required.", code: "missing_field") }
        guard let code = AssetCode(text) else {
            throw Problem.invalid(field, "An asset code is 1 to 24 characters of A-Z, 0-9, '-', '_' and '.'.")
        }
        return code
    }

    static func action(_ item: TransferItemRequest, index: Int?) throws -> TransferAction {
        func field(_ name: String) -> String { index.map { "transfers[\($0)].\(name)" } ?? name }
        switch item.action ?? "post" {
        case "post", "hold":
            let debit = try accountID(item.debitAccountId, field: field("debit_account_id"))
            let credit = try accountID(item.creditAccountId, field: field("credit_account_id"))
            guard let amount = item.amount else { throw Problem.invalid(field("amount"), "This member is required.", code: "missing_field") }
            let asset = try assetCode(item.asset, field: field("asset"))
            if item.action == "hold" {
                guard let timeout = item.timeoutSeconds else {
                    throw Problem.invalid(field("timeout_seconds"), "A hold needs `timeout_seconds` (0 never expires).", code: "missing_field")
                }
                return .hold(debit: debit, credit: credit, amount: amount.value, asset: asset, timeoutSeconds: timeout)
            }
            return .post(debit: debit, credit: credit, amount: amount.value, asset: asset)
        case "post_pending":
            return .postPending(pendingID: try transferID(item.pendingId, field: field("pending_id")), amount: item.amount?.value)
        case "void_pending":
            return .voidPending(pendingID: try transferID(item.pendingId, field: field("pending_id")))
        default:
            throw Problem.invalid(field("action"), "One of `post`, `hold`, `post_pending`, `void_pending`.")
        }
    }

    static func reference(_ ref: ReferenceRepresentation?) -> TransferReference? {
        ref.map { TransferReference(rail: $0.rail, type: $0.type, id: $0.id) }
    }
}
