/// What a request needs to see of the ledger before it submits anything, read in one database
/// transaction: the holds it names, the accounts it touches (and both sides of those holds), and
/// the assets of those accounts. A batch of a thousand transfers costs three queries, not three
/// thousand.
public struct LedgerRecords: Sendable {
    public var transfers: [TransferID: Transfer] = [:]
    public var accounts: [AccountID: Account] = [:]
    public var assets: [AssetCode: Asset] = [:]
}

extension Ledger {
    /// The transfers among `transferIDs`, the accounts among `accountIDs` plus both sides of every
    /// transfer found, and the assets of every account found; ids that do not exist are absent.
    public func records(transfers transferIDs: some Collection<TransferID>, accounts accountIDs: some Collection<AccountID>) async throws
        -> LedgerRecords
    {
        let transferKeys = Array(Set(transferIDs))
        let requestedAccounts = Set(accountIDs)
        // An admin's plain transfers need nothing: no read transaction at all.
        if transferKeys.isEmpty && requestedAccounts.isEmpty { return LedgerRecords() }
        return try await database.read { connection in
            var records = LedgerRecords()
            var accountKeys = requestedAccounts
            for row in try connection.selectIn(LedgerStore.selectTransfers + " WHERE id", keys: transferKeys) {
                let transfer = try LedgerStore.transfer(row)
                records.transfers[transfer.id] = transfer
                accountKeys.insert(transfer.debitAccountID)
                accountKeys.insert(transfer.creditAccountID)
            }
            for account in try LedgerStore.accounts(Array(accountKeys), locking: false, on: connection) {
                records.accounts[account.id] = account
            }
            let assetCodes = Array(Set(records.accounts.values.map(\.asset)))
            for row in try connection.selectIn(Self.selectAssets + " WHERE code", keys: assetCodes) {
                let asset = try Self.asset(row)
                records.assets[asset.code] = asset
            }
            return records
        }
    }
}
