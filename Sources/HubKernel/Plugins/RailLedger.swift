/// The ledger as a rail sees it (``PluginContext/ledger``): reads, and the set-up calls a rail
/// makes in its own name. It has no write path and no database: a rail moves money and changes
/// rows only inside its units of work (``PluginContext/write(_:)``), where the kernel holds it to
/// its own tables and event source. (The kernel's ``Ledger`` offers `write(as:)` with any owner and
/// its full `Database`; handing that to a rail would let it step around both checks.)
public struct RailLedger: Sendable {
    private let ledger: Ledger
    public let railID: String

    init(_ ledger: Ledger, railID: String) {
        self.ledger = ledger
        self.railID = railID
    }

    public var configuration: LedgerConfiguration { ledger.configuration }

    // MARK: Reads

    public func asset(_ code: AssetCode) async throws -> Asset? { try await ledger.asset(code) }
    public func scale(of code: AssetCode) async throws -> UInt8? { try await ledger.scale(of: code) }
    public func account(_ id: AccountID) async throws -> Account? { try await ledger.account(id) }
    public func accounts(_ ids: [AccountID]) async throws -> [Account] { try await ledger.accounts(ids) }
    public func transfer(_ id: TransferID) async throws -> Transfer? { try await ledger.transfer(id) }
    public func pendingStatus(_ id: TransferID) async throws -> PendingStatus? { try await ledger.pendingStatus(id) }

    public func recentTransfers(account: AccountID, limit: Int) async throws -> [Transfer] {
        try await ledger.recentTransfers(account: account, limit: limit)
    }

    public func records(transfers: some Collection<TransferID>, accounts: some Collection<AccountID>) async throws -> LedgerRecords {
        try await ledger.records(transfers: transfers, accounts: accounts)
    }

    // MARK: Set-up in the rail's own name

    /// `user`'s wallet in `asset`, created on first use (as ``Ledger/wallet(of:asset:)``).
    public func wallet(of user: UserID, asset: AssetCode) async throws -> Account {
        try await ledger.wallet(of: user, asset: asset)
    }

    /// Reserves the asset codes starting with `prefix` for this rail (``Ledger/reserveAssetCodes(prefix:rail:)``).
    /// `rail` must be this rail's id: a rail reserves codes for itself only.
    public func reserveAssetCodes(prefix: String, rail: String) {
        precondition(rail == railID, "the rail '\(railID)' may reserve asset codes only for itself, not for '\(rail)'")
        ledger.reserveAssetCodes(prefix: prefix, rail: rail)
    }

    /// Creates an asset (``Ledger/createAsset(_:)``); one that names a rail must name this one.
    public func createAsset(_ requested: NewAsset) async throws -> CreateResult<Asset> {
        if let rail = requested.rail, rail != railID {
            return .failed(TransferError(.ownedByRail, "the rail '\(railID)' creates assets in its own name, not in '\(rail)'", field: "rail"))
        }
        return try await ledger.createAsset(requested)
    }
}
