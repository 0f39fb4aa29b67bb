/// Where a transfer came from in a rail's terms, e.g. `("ble-sessions", "session", "<id>")`.
public struct TransferReference: Hashable, Sendable {
    public var rail: String
    public var type: String
    public var id: String

    public init(rail: String, type: String, id: String) {
        self.rail = rail
        self.type = type
        self.id = id
    }
}

/// What a transfer does.
public enum TransferAction: Sendable, Hashable {
    /// Moves `amount` now.
    case post(debit: AccountID, credit: AccountID, amount: UInt128, asset: AssetCode)
    /// Reserves `amount` (a hold) until posted, voided or expired. `timeoutSeconds` of 0 never expires.
    case hold(debit: AccountID, credit: AccountID, amount: UInt128, asset: AssetCode, timeoutSeconds: UInt32)
    /// Posts a hold: all of it when `amount` is `nil`, otherwise that much, releasing the rest.
    case postPending(pendingID: TransferID, amount: UInt128?)
    /// Releases a hold without moving anything.
    case voidPending(pendingID: TransferID)
}

/// A transfer as a client submits it.
public struct TransferRequest: Sendable, Hashable {
    public var id: TransferID
    public var action: TransferAction
    /// Links this transfer to the next one in the same batch: a chain succeeds or fails as a whole.
    public var linked: Bool
    public var reference: TransferReference?
    public var metadata: [String: String]

    public init(
        id: TransferID,
        action: TransferAction,
        linked: Bool = false,
        reference: TransferReference? = nil,
        metadata: [String: String] = [:]
    ) {
        self.id = id
        self.action = action
        self.linked = linked
        self.reference = reference
        self.metadata = metadata
    }
}

/// A transfer as the ledger recorded it.
public struct Transfer: Sendable, Equatable {
    public enum Kind: String, Sendable, Hashable {
        case posted
        case pending
        case postPending = "post_pending"
        case voidPending = "void_pending"
    }

    public var id: TransferID
    public var kind: Kind
    public var debitAccountID: AccountID
    public var creditAccountID: AccountID
    /// For `voidPending`, the amount released.
    public var amount: UInt128
    public var asset: AssetCode
    public var pendingID: TransferID?
    public var timeoutSeconds: UInt32
    public var linked: Bool
    public var reference: TransferReference?
    public var metadata: [String: String]
    public var timestamp: LedgerTimestamp

    /// The event type this transfer appends to the outbox.
    public var eventType: String {
        switch kind {
        case .posted: "ledger.transfer.posted"
        case .pending: "ledger.transfer.pending"
        case .postPending: "ledger.transfer.pending_posted"
        case .voidPending: "ledger.transfer.pending_voided"
        }
    }
}

/// The state of a hold.
public enum PendingState: String, Sendable, Hashable {
    case pending
    case posted
    case voided
    case expired
}

/// A hold's status record, kept beside the transfer that created it.
public struct PendingStatus: Sendable, Equatable {
    public var transferID: TransferID
    public var state: PendingState
    public var expiresAt: LedgerTimestamp?
    public var resolvedBy: TransferID?
    public var resolvedAt: LedgerTimestamp?
}

/// The outcome of one transfer in a batch.
public enum TransferResult: Sendable, Equatable {
    /// Recorded now.
    case created(Transfer)
    /// Recorded earlier with exactly these fields; nothing changed (an idempotent retry).
    case exists(Transfer)
    /// Refused; nothing changed.
    case failed(TransferError)

    public var transfer: Transfer? {
        switch self {
        case .created(let t), .exists(let t): t
        case .failed: nil
        }
    }

    public var error: TransferError? {
        if case .failed(let e) = self { return e }
        return nil
    }
}
