extension UnitOfWork {
    /// Links `address` of wallet `scheme` to `user` for wallet sign-in, in this unit, without a
    /// signed challenge: for a rail that itself made the key (a custodial wallet it has just
    /// created), so no one who learns the key later can sign in with it as a new user first.
    /// `address` must be the scheme's normalised form (what its verifier's `normalise` answers).
    /// Linking an address already linked to `user` changes nothing; a new link appends the kernel's
    /// wallet-linked event, as a signed link does.
    /// - Throws: `wallet_linked_elsewhere` when the address belongs to another user.
    @discardableResult
    public func linkWallet(scheme: String, address: String, to user: UserID) throws -> WalletLink {
        if let existing = try WalletSignIn.link(scheme, address, on: database) {
            guard existing.userID == user else {
                throw IdentityError(.walletLinkedElsewhere, "this address is linked to another account", field: "address")
            }
            return existing
        }
        return try WalletSignIn.insertLink(scheme: scheme, address: address, userID: user, at: now, on: database)
    }
}
