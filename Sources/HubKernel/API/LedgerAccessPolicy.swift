/// Who may see and move what in the ledger (the authorisation matrix of the ledger endpoints).
///
/// - Admins: everything.
/// - Organisers: see every account of an asset they organise; move money out of their own
///   accounts and out of that asset's issuance account (which is how they mint; burning is a
///   transfer into it). A member's wallet is the member's alone, whoever organises its asset.
/// - Members: their own accounts only.
///
/// Whatever the role, accounts a rail manages are moved by that rail alone (the ledger checks
/// that itself, see `LedgerBatch.railOwnershipRefusal`).
///
/// Pure functions of the caller and the records, so the matrix is tested without HTTP.
struct LedgerAccessPolicy: Sendable {
    let principal: Principal

    func owns(_ account: Account) -> Bool {
        account.owner.kind == .user && account.owner.id == principal.userID.description
    }

    func organises(_ asset: Asset?) -> Bool {
        guard let organiser = asset?.organiserID else { return false }
        return principal.has(.organiser) && organiser == principal.userID.description
    }

    /// Seeing an account (and the transfers on it). Anything else answers 404, never 403, so that
    /// nobody learns which ids exist.
    func canView(_ account: Account, asset: Asset?) -> Bool {
        principal.isAdmin || owns(account) || organises(asset)
    }

    /// Moving money out of an account (posting or holding with it on the debit side).
    func canDebit(_ account: Account, asset: Asset?) -> Bool {
        principal.isAdmin || owns(account) || (organises(asset) && account.id == asset?.issuanceAccountID)
    }

    /// Posting or voiding a hold: whoever may debit its debit account, or the owner of its credit
    /// account (a payee captures or releases what was authorised to it).
    func canResolve(debit: Account, credit: Account, debitAsset: Asset?) -> Bool {
        canDebit(debit, asset: debitAsset) || owns(credit)
    }

    /// Creating an account: admins any; everybody else only accounts that cannot go negative (an
    /// account that may go negative mints money, and issuance is the one place that does): their
    /// own wallets, and organisers also wallets for others and organisation accounts on an asset
    /// they organise.
    func canCreate(_ new: NewAccount, asset: Asset?) -> Bool {
        if principal.isAdmin { return true }
        guard new.flags == [.debitsMustNotExceedCredits] else { return false }
        if organises(asset) { return new.owner.kind != .system }
        return new.owner.kind == .user && new.owner.id == principal.userID.description
    }

    /// Creating an asset: admins and organisers.
    var canCreateAssets: Bool { principal.isAdmin || principal.has(.organiser) }
}
