extension AccountID {
    /// The id of `user`'s wallet in `asset`: derived from the two, so every part of the hub (the
    /// API's `PUT /v1/users/{id}/wallets/{asset}`, a rail paying a user) lands on the same account.
    public static func wallet(user: UserID, asset: AssetCode) -> AccountID {
        DerivedID.wallet(user: user.description, asset: asset)
    }
}

extension Ledger {
    /// `user`'s wallet in `asset`, created on first use (a user-owned account whose debits may not
    /// exceed its credits).
    /// - Throws: the ledger's ``TransferError`` (e.g. `asset_not_found`) when it cannot be created.
    public func wallet(of user: UserID, asset: AssetCode) async throws -> Account {
        let id = AccountID.wallet(user: user, asset: asset)
        if let existing = try await account(id) { return existing }
        switch try await createAccounts([NewAccount(id: id, asset: asset, owner: .user(user.description))])[0] {
        case .created(let account), .exists(let account): return account
        case .failed(let error): throw error
        }
    }
}
