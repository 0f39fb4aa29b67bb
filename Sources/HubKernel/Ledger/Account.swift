/// Balance rules an account enforces on every transfer, pending ones included.
public struct AccountFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A wallet that cannot go negative: `debits_posted + debits_pending ≤ credits_posted`.
    public static let debitsMustNotExceedCredits = AccountFlags(rawValue: 1 << 0)
    /// The mirror rule, for liability-side accounts: `credits_posted + credits_pending ≤ debits_posted`.
    public static let creditsMustNotExceedDebits = AccountFlags(rawValue: 1 << 1)

    static let known: AccountFlags = [.debitsMustNotExceedCredits, .creditsMustNotExceedDebits]
}

/// Who an account belongs to.
public struct AccountOwner: Hashable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init?(rawValue: String) {
            guard ["user", "organisation", "system"].contains(rawValue) else { return nil }
            self.rawValue = rawValue
        }
        private init(known: String) { rawValue = known }
        public static let user = Kind(known: "user")
        public static let organisation = Kind(known: "organisation")
        public static let system = Kind(known: "system")
        public var description: String { rawValue }
    }

    public var kind: Kind
    public var id: String

    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }

    public static func user(_ id: String) -> AccountOwner { AccountOwner(kind: .user, id: id) }
    public static func organisation(_ id: String) -> AccountOwner { AccountOwner(kind: .organisation, id: id) }
    public static func system(_ id: String) -> AccountOwner { AccountOwner(kind: .system, id: id) }

    public var description: String { "\(kind):\(id)" }
}

/// A ledger account and its four balances (TigerBeetle's model).
public struct Account: Sendable, Equatable {
    public var id: AccountID
    public var asset: AssetCode
    public var owner: AccountOwner
    /// What the account is for, e.g. `wallet`, `issuance`, `escrow`.
    public var code: String
    public var flags: AccountFlags
    public var debitsPosted: UInt128
    public var creditsPosted: UInt128
    public var debitsPending: UInt128
    public var creditsPending: UInt128
    public var metadata: [String: String]
    public var createdAt: LedgerTimestamp
    /// The rail that manages this account (set at creation, never changed): only transfers that
    /// name this rail in their `ref` move it, so the kernel API cannot touch money a rail mirrors
    /// (a chain's balances) or holds for its own state machine. `nil` for ordinary accounts.
    public var rail: String? = nil

    /// What a wallet (a credit-normal account) can still spend: credits posted, less debits posted
    /// and held. Zero when debits exceed that (possible only for accounts without the flag).
    public var available: UInt128 {
        let used = debitsPosted.addingReportingOverflow(debitsPending)
        guard !used.overflow, creditsPosted >= used.partialValue else { return 0 }
        return creditsPosted - used.partialValue
    }
}

/// The fields a client gives to create an account.
public struct NewAccount: Sendable, Equatable {
    public var id: AccountID
    public var asset: AssetCode
    public var owner: AccountOwner
    public var code: String
    public var flags: AccountFlags
    public var metadata: [String: String]
    /// The rail that will manage the account (see ``Account/rail``). Accounts of an asset a rail
    /// owns must name that rail.
    public var rail: String?

    public init(
        id: AccountID,
        asset: AssetCode,
        owner: AccountOwner,
        code: String = "wallet",
        flags: AccountFlags = [.debitsMustNotExceedCredits],
        metadata: [String: String] = [:],
        rail: String? = nil
    ) {
        self.id = id
        self.asset = asset
        self.owner = owner
        self.code = code
        self.flags = flags
        self.metadata = metadata
        self.rail = rail
    }
}
