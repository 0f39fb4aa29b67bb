/// The ledger rows a set of transfer requests touches: what ``LedgerStore`` reads for them in one
/// go (each request's own id, the accounts it moves, the holds it resolves).
public struct LedgerKeys: Sendable, Equatable {
    public var transfers: Set<TransferID> = []
    public var accounts: Set<AccountID> = []
    /// Holds that requests post or void: their transfer, pending row and accounts are read.
    public var pending: Set<TransferID> = []

    public init() {}

    /// Adds what `request` touches.
    public mutating func add(_ request: TransferRequest) {
        transfers.insert(request.id)
        switch request.action {
        case .post(let debit, let credit, _, _), .hold(let debit, let credit, _, _, _):
            accounts.insert(debit)
            accounts.insert(credit)
        case .postPending(let pendingID, _), .voidPending(let pendingID):
            pending.insert(pendingID)
        }
    }

    public var isEmpty: Bool { transfers.isEmpty && accounts.isEmpty && pending.isEmpty }
}
