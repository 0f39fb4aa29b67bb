import HubKernel

/// A tip jar as stored in `tip_jar_jars`.
struct TipJar: Sendable, Equatable {
    enum Status: String, Sendable {
        case open, closed
    }

    /// A random UUID in lower-case text; also the `id` of every tip's ledger `ref`.
    var id: String
    var asset: AssetCode
    /// Where tips are credited.
    var payeeAccountID: AccountID
    var title: String
    /// The user who opened the jar.
    var openedBy: String
    var status: Status
    /// The sum of the tips recorded: always the sum of the ledger transfers with this jar's `ref`
    /// that went through the tip route.
    var total: UInt128
    var tipCount: Int64
    var createdAt: LedgerTimestamp
    /// When the closer service closes the jar, if ever.
    var closesAt: LedgerTimestamp?
    var closedAt: LedgerTimestamp?

    /// The `ref` every tip transfer into this jar carries, so the ledger alone can say what a
    /// transfer was for (and a reconciliation can sum them per jar).
    var reference: TransferReference {
        TransferReference(rail: TipJarPlugin.id, type: "jar", id: id)
    }
}

/// One tip as stored in `tip_jar_tips`: a ledger transfer counted into a jar.
struct TipRecord: Sendable, Equatable {
    var transferID: TransferID
    var jarID: String
    var fromAccountID: AccountID
    var amount: UInt128
    var tippedAt: LedgerTimestamp
}
