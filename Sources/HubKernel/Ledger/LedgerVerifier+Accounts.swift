/// The account invariants (1, 2 and 4), each checked on one page of accounts at a time.
extension LedgerVerifier {
    /// Calls `body` with every account, `pageSize` at a time in id order (keyset pagination: each
    /// page starts after the last id of the one before, so a page costs the same wherever it is).
    static func forEachAccountPage(_ connection: any SQLConnection, pageSize: Int, _ body: ([Account]) throws -> Void) throws {
        var after: AccountID?
        while true {
            let start: SQL = after.map { " WHERE id > \($0)" } ?? ""
            let rows = try connection.query(LedgerStore.selectAccounts + start + " ORDER BY id LIMIT \(pageSize)")
            let page = try rows.map(LedgerStore.account)
            if !page.isEmpty { try body(page) }
            guard page.count == pageSize, let last = page.last else { return }
            after = last.id
        }
    }

    static func accountsWithUnknownAssets(_ page: [Account], knownAssets: Set<AssetCode>) -> [String] {
        page.filter { !knownAssets.contains($0.asset) }.map { "account \($0.id) holds unknown asset \($0.asset)" }
    }

    /// Invariant 2: a flagged account never has more debits (or credits) than its flag allows,
    /// pending ones included.
    static func balanceFlagViolations(_ page: [Account]) -> [String] {
        var problems: [String] = []
        for account in page {
            let debits = account.debitsPosted.addingReportingOverflow(account.debitsPending)
            let credits = account.creditsPosted.addingReportingOverflow(account.creditsPending)
            if account.flags.contains(.debitsMustNotExceedCredits), debits.overflow || debits.partialValue > account.creditsPosted {
                problems.append("account \(account.id) breaks debits_must_not_exceed_credits")
            }
            if account.flags.contains(.creditsMustNotExceedDebits), credits.overflow || credits.partialValue > account.debitsPosted {
                problems.append("account \(account.id) breaks credits_must_not_exceed_debits")
            }
        }
        return problems
    }

    /// Invariant 1, gathering: adds a page's balances to the per-asset sums.
    static func addBalances(of page: [Account], to sums: inout [AssetCode: Balances]) {
        for account in page { sums[account.asset, default: Balances()].add(account) }
    }

    /// Invariant 1, judging: per asset, all debits equal all credits, posted and pending.
    static func unbalancedAssets(_ sums: [AssetCode: Balances]) -> [String] {
        var problems: [String] = []
        for (asset, sum) in sums.sorted(by: { $0.key < $1.key }) {
            if sum.debitsPosted != sum.creditsPosted { problems.append("asset \(asset): posted debits and credits differ") }
            if sum.debitsPending != sum.creditsPending { problems.append("asset \(asset): pending debits and credits differ") }
        }
        return problems
    }

    static func missingIssuanceAccounts(_ assets: [Asset], unseen: Set<AccountID>) -> [String] {
        assets.filter { unseen.contains($0.issuanceAccountID) }.map { "asset \($0.code): issuance account \($0.issuanceAccountID) is missing" }
    }

    /// Invariant 4: each account's stored balances equal the replay of the transfers naming it:
    /// posts (and posts of holds) move posted balances, holds still pending move pending ones.
    ///
    /// A page holds every account whose id lies between its first and its last, so the transfers
    /// to replay are those whose debit (then credit) account is in that range: two range scans of
    /// the transfers' account indexes per page, and every transfer is read once per side overall.
    static func replayMismatches(_ page: [Account], pageSize: Int, on connection: any SQLConnection) throws -> [String] {
        guard let first = page.first?.id, let last = page.last?.id else { return [] }
        var replayed: [AccountID: Balances] = [:]
        let sides: [(column: SQLIdentifier, posted: WritableKeyPath<Balances, WideSum>, pending: WritableKeyPath<Balances, WideSum>)] = [
            (SQLIdentifier("debit_account_id")!, \.debitsPosted, \.debitsPending),
            (SQLIdentifier("credit_account_id")!, \.creditsPosted, \.creditsPending),
        ]
        for side in sides {
            // In pages of (account, timestamp), the order of the side's index: one busy account
            // (an asset's issuance account names every mint) must not come back as one result.
            var after: (account: AccountID, timestamp: Int64)?
            while true {
                let start: SQL =
                    after.map { "(t.\(identifier: side.column), t.timestamp) > (\($0.account), \($0.timestamp))" }
                    ?? "t.\(identifier: side.column) >= \(first)"
                let select: SQL = """
                    SELECT t.\(identifier: side.column), t.kind, t.amount, p.state, t.timestamp FROM ledger_transfers t \
                    LEFT JOIN ledger_pending p ON p.transfer_id = t.id WHERE\u{20}
                    """
                let rows = try connection.query(
                    select + start
                        + " AND t.\(identifier: side.column) <= \(last) ORDER BY t.\(identifier: side.column), t.timestamp LIMIT \(pageSize)"
                )
                for row in rows {
                    let account = try AccountID(row: row, 0)
                    try replay(row, into: &replayed[account, default: Balances()], posted: side.posted, pending: side.pending)
                }
                guard rows.count == pageSize, let lastRow = rows.last else { break }
                after = (try AccountID(row: lastRow, 0), try lastRow.int(4))
            }
        }
        var problems: [String] = []
        for account in page {
            var stored = Balances()
            stored.add(account)
            if stored != replayed[account.id] ?? Balances() {
                problems.append("account \(account.id): balances differ from the replay of its transfers")
            }
        }
        return problems
    }

    /// Adds one transfer row (`kind`, `amount`, the hold's `state` at columns 1 to 3) to an
    /// account's replayed balances on one side.
    private static func replay(
        _ row: SQLRow,
        into balances: inout Balances,
        posted: WritableKeyPath<Balances, WideSum>,
        pending: WritableKeyPath<Balances, WideSum>
    ) throws {
        let kindText = try row.text(1)
        guard let kind = Transfer.Kind(rawValue: kindText) else { throw DatabaseError(.decode, "unknown transfer kind '\(kindText)'") }
        switch kind {
        case .posted, .postPending:
            balances[keyPath: posted].add(try row.uint128(2))
        case .pending:
            // A hold counts only while it is pending; once posted, voided or expired, what it
            // moved (if anything) is the resolving transfer's.
            if try row.optionalText(3) == PendingState.pending.rawValue { balances[keyPath: pending].add(try row.uint128(2)) }
        case .voidPending:
            break
        }
    }
}
