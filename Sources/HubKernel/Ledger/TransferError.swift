/// Why the ledger refused a transfer, or an account or asset. Codes are stable strings that
/// clients may match on; messages are for people.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ raw: String) { rawValue = raw }
        public var description: String { rawValue }

        public static let idMustNotBeZero = Code("id_must_not_be_zero")
        public static let amountMustNotBeZero = Code("amount_must_not_be_zero")
        public static let accountsMustBeDifferent = Code("accounts_must_be_different")
        public static let debitAccountNotFound = Code("debit_account_not_found")
        public static let creditAccountNotFound = Code("credit_account_not_found")
        public static let assetMismatch = Code("asset_mismatch")
        public static let exceedsCredits = Code("exceeds_credits")
        public static let exceedsDebits = Code("exceeds_debits")
        public static let overflowsDebits = Code("overflows_debits")
        public static let overflowsCredits = Code("overflows_credits")
        public static let pendingTransferNotFound = Code("pending_transfer_not_found")
        public static let pendingTransferNotPending = Code("pending_transfer_not_pending")
        public static let pendingTransferAlreadyPosted = Code("pending_transfer_already_posted")
        public static let pendingTransferAlreadyVoided = Code("pending_transfer_already_voided")
        public static let pendingTransferExpired = Code("pending_transfer_expired")
        public static let exceedsPendingTransferAmount = Code("exceeds_pending_transfer_amount")
        public static let existsWithDifferentFields = Code("exists_with_different_fields")
        public static let linkedEventFailed = Code("linked_event_failed")
        public static let linkedEventChainOpen = Code("linked_event_chain_open")
        public static let invalidField = Code("invalid_field")
        public static let batchTooLarge = Code("batch_too_large")
        public static let assetNotFound = Code("asset_not_found")
        /// The account, its asset or the hold belongs to a rail, and the request does not come from it.
        public static let ownedByRail = Code("owned_by_rail")
        /// The asset code lies in a range a rail reserved for the assets it creates.
        public static let assetCodeReserved = Code("asset_code_reserved")
    }

    public var code: Code
    public var message: String
    /// The field at fault, where one is (e.g. `amount` for `exists_with_different_fields`).
    public var field: String?
    /// For `exceeds_credits`: what the account had and what was asked, so the API can say it in
    /// the asset's units (the ledger knows minor units only).
    public var shortfall: Shortfall?

    /// An amount asked of an account that has less available.
    public struct Shortfall: Sendable, Hashable {
        public var asset: AssetCode
        public var available: UInt128
        public var requested: UInt128
    }

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code): \(message)" }

    /// Errors compare by code and field, so tests can write `#expect(throws: TransferError(.x, ""))`-style
    /// checks on the code without repeating the wording.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.field == rhs.field }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(field)
    }
}

/// The creation of an account or asset: new, or already there with the same fields.
public enum CreateResult<Value: Sendable & Equatable>: Sendable, Equatable {
    case created(Value)
    case exists(Value)
    case failed(TransferError)

    public var value: Value? {
        switch self {
        case .created(let v), .exists(let v): v
        case .failed: nil
        }
    }
}
