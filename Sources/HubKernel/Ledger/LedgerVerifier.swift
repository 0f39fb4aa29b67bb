/// What `hubd verify` found.
public struct VerificationReport: Sendable, CustomStringConvertible {
    public var assets = 0
    public var accounts = 0
    public var transfers = 0
    public var holdsPending = 0
    public var problems: [String] = []

    public var passed: Bool { problems.isEmpty }

    public var description: String {
        var lines = [
            "assets: \(assets), accounts: \(accounts), transfers: \(transfers), holds pending: \(holdsPending)"
        ]
        if passed {
            lines.append("all ledger invariants hold")
        } else {
            lines.append("\(problems.count) problem(s):")
            lines.append(contentsOf: problems.prefix(100).map { "  - \($0)" })
            if problems.count > 100 { lines.append("  … and \(problems.count - 100) more") }
        }
        return lines.joined(separator: "\n")
    }
}

/// Checks the ledger's invariants against what is stored:
/// 1. per asset, debits equal credits (posted and pending), i.e. balances sum to zero;
/// 2. no account breaks its balance flag;
/// 3. every transfer has exactly one event, timestamps strictly increase, assets match accounts;
/// 4. every account's balances equal the replay of all transfers and the holds still pending.
///
/// Reads one consistent snapshot in pages, so it runs on any size of ledger: accounts by id
/// (keyset pagination), each page checked on its own (flags, replay) and folded into per-asset
/// sums; transfers by timestamp. What stays in memory is per asset, per page, and per hold.
public enum LedgerVerifier {
    /// - Parameters:
    ///   - pageSize: transfers (and holds' statuses) read per query.
    ///   - accountPageSize: accounts read, and replayed, per query.
    public static func verify(_ database: Database, pageSize: Int = 10_000, accountPageSize: Int = 1_000) async throws -> VerificationReport {
        try await database.read { connection in try verify(connection, pageSize: pageSize, accountPageSize: accountPageSize) }
    }

    static func verify(_ connection: any SQLConnection, pageSize: Int, accountPageSize: Int) throws -> VerificationReport {
        precondition(pageSize > 0 && accountPageSize > 0, "page sizes must be positive")
        var report = VerificationReport()
        let assets = try connection.query(Ledger.selectAssets).map(Ledger.asset)
        report.assets = assets.count
        let knownAssets = Set(assets.map(\.code))
        var unseenIssuanceAccounts = Set(assets.map(\.issuanceAccountID))
        var sums: [AssetCode: Balances] = [:]
        try forEachAccountPage(connection, pageSize: accountPageSize) { page in
            report.accounts += page.count
            for account in page { unseenIssuanceAccounts.remove(account.id) }
            report.problems += accountsWithUnknownAssets(page, knownAssets: knownAssets)
            report.problems += balanceFlagViolations(page)
            addBalances(of: page, to: &sums)
            report.problems += try replayMismatches(page, pageSize: pageSize, on: connection)
        }
        report.problems += missingIssuanceAccounts(assets, unseen: unseenIssuanceAccounts)
        report.problems += unbalancedAssets(sums)
        let holds = try checkTransferLog(connection, pageSize: pageSize, into: &report)
        try checkHoldStatuses(connection, holds: holds, pageSize: pageSize, into: &report)
        report.problems += try transferEventMismatches(connection, transfers: report.transfers)
        return report
    }

    /// A 256-bit accumulator, so sums of many 128-bit balances cannot overflow.
    struct WideSum: Equatable {
        var high: UInt128 = 0
        var low: UInt128 = 0
        mutating func add(_ value: UInt128) {
            let (sum, overflow) = low.addingReportingOverflow(value)
            low = sum
            if overflow { high += 1 }
        }
    }

    /// The four balances of one account, or of all accounts of one asset, summed without overflow.
    struct Balances: Equatable {
        var debitsPosted = WideSum()
        var creditsPosted = WideSum()
        var debitsPending = WideSum()
        var creditsPending = WideSum()

        mutating func add(_ account: Account) {
            debitsPosted.add(account.debitsPosted)
            creditsPosted.add(account.creditsPosted)
            debitsPending.add(account.debitsPending)
            creditsPending.add(account.creditsPending)
        }
    }
}
