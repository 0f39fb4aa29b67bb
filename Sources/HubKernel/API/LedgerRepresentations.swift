/// The JSON shapes of ledger records in the API (DESIGN §3.6): `snake_case`, amounts as strings of
/// minor units, ids as UUID strings, times as RFC 3339 with nanoseconds.
struct AssetRepresentation: Encodable, Sendable {
    var code: String
    var scale: UInt8
    var name: String
    var issuanceAccountId: String
    var organiserId: String?
    var createdAt: String
    /// The rail that owns the asset and alone moves its money; absent for kernel assets.
    var rail: String?

    init(_ asset: Asset) {
        code = asset.code.rawValue
        scale = asset.scale
        name = asset.name
        issuanceAccountId = asset.issuanceAccountID.description
        organiserId = asset.organiserID
        createdAt = asset.createdAt.description
        rail = asset.rail
    }
}

struct OwnerRepresentation: Codable, Sendable {
    var kind: String
    var id: String
}

struct BalancesRepresentation: Encodable, Sendable {
    var debitsPosted: MinorUnits
    var creditsPosted: MinorUnits
    var debitsPending: MinorUnits
    var creditsPending: MinorUnits
    /// What the owner can spend now: credits posted minus debits posted and pending (never below 0).
    var available: MinorUnits
}

struct AccountRepresentation: Encodable, Sendable {
    var id: String
    var asset: String
    var owner: OwnerRepresentation
    var code: String
    var flags: [String]
    var balances: BalancesRepresentation
    var metadata: [String: String]
    var createdAt: String
    /// The rail that manages the account and alone moves its money; absent for ordinary accounts.
    var rail: String?

    init(_ account: Account) {
        id = account.id.description
        asset = account.asset.rawValue
        owner = OwnerRepresentation(kind: account.owner.kind.rawValue, id: account.owner.id)
        code = account.code
        flags = AccountFlagName.names(account.flags)
        balances = BalancesRepresentation(
            debitsPosted: MinorUnits(account.debitsPosted),
            creditsPosted: MinorUnits(account.creditsPosted),
            debitsPending: MinorUnits(account.debitsPending),
            creditsPending: MinorUnits(account.creditsPending),
            available: MinorUnits(account.available)
        )
        metadata = account.metadata
        createdAt = account.createdAt.description
        rail = account.rail
    }
}

/// The API's names for account flags.
enum AccountFlagName {
    static let debitsMustNotExceedCredits = "debits_must_not_exceed_credits"
    static let creditsMustNotExceedDebits = "credits_must_not_exceed_debits"

    static func names(_ flags: AccountFlags) -> [String] {
        var names: [String] = []
        if flags.contains(.debitsMustNotExceedCredits) { names.append(debitsMustNotExceedCredits) }
        if flags.contains(.creditsMustNotExceedDebits) { names.append(creditsMustNotExceedDebits) }
        return names
    }

    static func flags(_ names: [String]) throws -> AccountFlags {
        var flags: AccountFlags = []
        for (index, name) in names.enumerated() {
            switch name {
            case debitsMustNotExceedCredits: flags.insert(.debitsMustNotExceedCredits)
            case creditsMustNotExceedDebits: flags.insert(.creditsMustNotExceedDebits)
            default: throw Problem.invalid("flags[\(index)]", "Unknown flag `\(name)`.")
            }
        }
        return flags
    }
}

struct ReferenceRepresentation: Codable, Sendable {
    var rail: String
    var type: String
    var id: String
}

struct TransferRepresentation: Encodable, Sendable {
    var id: String
    var kind: String
    var debitAccountId: String
    var creditAccountId: String
    var amount: MinorUnits
    var asset: String
    var pendingId: String?
    var timeoutSeconds: UInt32
    var linked: Bool
    var ref: ReferenceRepresentation?
    var metadata: [String: String]
    var timestamp: String
    /// For holds: `pending`, `posted`, `voided` or `expired`.
    var pendingState: String?

    init(_ transfer: Transfer, pendingState: PendingState? = nil) {
        id = transfer.id.description
        kind = transfer.kind.rawValue
        debitAccountId = transfer.debitAccountID.description
        creditAccountId = transfer.creditAccountID.description
        amount = MinorUnits(transfer.amount)
        asset = transfer.asset.rawValue
        pendingId = transfer.pendingID?.description
        timeoutSeconds = transfer.timeoutSeconds
        linked = transfer.linked
        ref = transfer.reference.map { ReferenceRepresentation(rail: $0.rail, type: $0.type, id: $0.id) }
        metadata = transfer.metadata
        timestamp = transfer.timestamp.description
        self.pendingState = pendingState?.rawValue
    }
}
