/// Money a rail manages is moved by that rail alone.
///
/// A chain's mirror accounts must equal the chain; a rail's holds belong to its state machine. If
/// anybody else could move them (an admin through `POST /v1/ledger/transfers`, say), the mirror and
/// the chain would disagree for good. Rails name themselves in every transfer's `ref.rail`; the
/// kernel API refuses `ref.rail` values that name a rail. So the rule is checked here, on every
/// path into the ledger, and cannot be forgotten by a controller.
extension LedgerBatch {
    /// `owned_by_rail` when one of `accounts` is managed by a rail that `request` does not name.
    static func railOwnershipRefusal(_ request: TransferRequest, accounts: [(account: Account, field: String)]) -> TransferError? {
        for (account, field) in accounts {
            guard let rail = account.rail, request.reference?.rail != rail else { continue }
            return TransferError(
                .ownedByRail,
                "account \(account.id) is managed by the rail '\(rail)': only that rail moves its money",
                field: field
            )
        }
        return nil
    }
}
