public import HubKernel

/// A payee's request to be paid, found by phones nearby through its ``EphemeralID``.
///
/// A session has `shares` equal parts (one for a single payer). A payer locks one share, which
/// places a hold on their wallet, then pays it, which posts the hold. The status follows from
/// the shares until the session ends (paid, expired or cancelled).
public struct PaymentSession: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Open: every unpaid share is free to lock (Gotchu's `ADVERTISING`).
        case advertising
        /// Every unpaid share is locked by a payer.
        case locked
        /// Split sessions only: some shares paid, some free.
        case partiallyPaid = "partially_paid"
        /// Every share paid.
        case paid
        /// Ran out of time before every share was paid (Gotchu's `TIMEOUT`).
        case expired
        /// Ended by the payee (Gotchu's `CANCEL`).
        case cancelled

        public var isFinal: Bool { self == .paid || self == .expired || self == .cancelled }
    }

    public enum SplitMode: String, Sendable, Codable {
        case single
        case equal
    }

    public var id: String
    public var payeeID: UserID
    public var payeeAccountID: AccountID
    /// The payee's display name when the session opened; what a resolve shows (never the e-mail).
    public var payeeDisplayName: String
    public var asset: AssetCode
    /// The whole bill in minor units; a split divides it into ``shares`` exact parts.
    public var amount: UInt128
    public var splitMode: SplitMode
    public var shares: Int
    public var paidShares: Int
    public var heldShares: Int
    public var status: Status
    public var eid: EphemeralID
    public var eidIssuedAt: LedgerTimestamp
    public var createdAt: LedgerTimestamp
    public var expiresAt: LedgerTimestamp
    public var endedAt: LedgerTimestamp?

    /// Share `index` of the bill: the amount divided by the shares, the first `amount % shares`
    /// shares one unit more, so the shares always add up to the amount exactly.
    public func shareAmount(_ index: Int) -> UInt128 {
        let count = UInt128(shares)
        return amount / count + (UInt128(index) < amount % count ? 1 : 0)
    }

    /// The status that the shares imply, for a session that has not ended.
    mutating func settleStatus() {
        guard !status.isFinal else { return }
        if paidShares == shares {
            status = .paid
        } else if paidShares + heldShares == shares {
            status = .locked
        } else if paidShares > 0 {
            status = .partiallyPaid
        } else {
            status = .advertising
        }
    }
}

/// One payer's claim on one share: a hold on their wallet until it is paid, expires or is released.
public struct SessionLock: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        case held
        case paid
        /// Its time ran out before payment; the hold was voided and the share reopened.
        case expired
        /// The session ended (cancelled or expired) while it was held; the hold was voided.
        case released
    }

    public var id: String
    public var sessionID: String
    public var share: Int
    public var payerID: UserID
    public var payerAccountID: AccountID
    public var amount: UInt128
    public var holdID: TransferID
    public var state: State
    public var lockedAt: LedgerTimestamp
    public var expiresAt: LedgerTimestamp
    public var resolvedAt: LedgerTimestamp?
    /// The ledger transfer that posted the hold, once paid.
    public var paymentID: TransferID?
}
