/// Who may see and move what in the ledger (the authorisation matrix of the ledger endpoints).
///
/// - Admins: everything.
/// - Organisers: their own accounts, and every account of an asset they organise, including its
///   issuance account (which is how they mint).
/// - Members: their own accounts only.
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
        principal.isAdmin || owns(account) || organises(asset)
    }

    /// Posting or voiding a hold: whoever may debit its debit account, or the owner of its credit
    /// account (a payee captures or releases what was authorised to it).
    func canResolve(debit: Account, credit: Account, debitAsset: Asset?) -> Bool {
        canDebit(debit, asset: debitAsset) || owns(credit)
    }

    /// Creating an account: admins any; organisers any on an asset they organise; everybody their
    /// own, and then only a wallet that cannot go negative.
    func canCreate(_ new: NewAccount, asset: Asset?) -> Bool {
        if principal.isAdmin || organises(asset) { return true }
        return new.owner.kind == .user && new.owner.id == principal.userID.description && new.flags == [.debitsMustNotExceedCredits]
    }

    /// Creating an asset: admins and organisers.
    var canCreateAssets: Bool { principal.isAdmin || principal.has(.organiser) }
}
