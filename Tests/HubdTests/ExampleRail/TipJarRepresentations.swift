import HubKernel

/// `POST /jars`. Members arrive in `snake_case` (`payee_account_id`) and are decoded by the
/// context's decoder, so a missing or mistyped one becomes a 422 naming it.
struct OpenJarRequest: Decodable, Sendable {
    var asset: String
    var payeeAccountId: String
    var title: String
    /// Optional: the closer service closes the jar this many seconds after it opens.
    var closesInSeconds: Int?
}

/// `POST /jars/{id}/tips`.
struct TipRequest: Decodable, Sendable {
    /// The ledger transfer id. Chosen by the client so that a retry is the same transfer; a
    /// random one is used when absent (then only an `Idempotency-Key` makes a retry safe).
    var id: String?
    /// Minor units as a string (`"250"`), per the API's amount convention.
    var amount: MinorUnits
    var fromAccountId: String
}

/// A jar in responses and in event data.
struct JarRepresentation: Encodable, Sendable {
    var id: String
    var asset: String
    var payeeAccountId: String
    var title: String
    var openedBy: String
    var status: String
    var total: MinorUnits
    var tipCount: Int64
    var createdAt: String
    var closesAt: String?
    var closedAt: String?

    init(_ jar: TipJar) {
        id = jar.id
        asset = jar.asset.rawValue
        payeeAccountId = jar.payeeAccountID.description
        title = jar.title
        openedBy = jar.openedBy
        status = jar.status.rawValue
        total = MinorUnits(jar.total)
        tipCount = jar.tipCount
        createdAt = jar.createdAt.description
        closesAt = jar.closesAt?.description
        closedAt = jar.closedAt?.description
    }
}

/// A recorded tip.
struct TipRepresentation: Encodable, Sendable {
    var transferId: String
    var jarId: String
    var fromAccountId: String
    var amount: MinorUnits
    var asset: String
    var tippedAt: String

    init(_ tip: TipRecord, asset: AssetCode) {
        transferId = tip.transferID.description
        jarId = tip.jarID
        fromAccountId = tip.fromAccountID.description
        amount = MinorUnits(tip.amount)
        self.asset = asset.rawValue
        tippedAt = tip.tippedAt.description
    }
}

/// The answer to a tip: the tip and the jar after it.
struct TipReceipt: Encodable, Sendable {
    var tip: TipRepresentation
    var jar: JarRepresentation
}
