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
/// Reads one consistent snapshot, transfers in pages, so it runs on any size of ledger.
public enum LedgerVerifier {
    public static func verify(_ database: Database, pageSize: Int = 10_000) async throws -> VerificationReport {
        try await database.read { connection in try verify(connection, pageSize: pageSize) }
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

    struct Replayed {
        var debitsPosted = WideSum()
        var creditsPosted = WideSum()
        var debitsPending = WideSum()
        var creditsPending = WideSum()
    }

    static func verify(_ connection: any SQLConnection, pageSize: Int) throws -> VerificationReport {
        var report = VerificationReport()
        let assets = try connection.query(Ledger.selectAssets).map(Ledger.asset)
        report.assets = assets.count
        var accounts: [AccountID: Account] = [:]
        for row in try connection.query(LedgerStore.selectAccounts) {
            let account = try LedgerStore.account(row)
            accounts[account.id] = account
        }
        report.accounts = accounts.count
        let knownAssets = Set(assets.map { $0.code })
        for asset in assets where accounts[asset.issuanceAccountID] == nil {
            report.problems.append("asset \(asset.code): issuance account \(asset.issuanceAccountID) is missing")
        }

        // 1 and 2: sums per asset and flags.
        var sums: [AssetCode: (dp: WideSum, cp: WideSum, dq: WideSum, cq: WideSum)] = [:]
        for account in accounts.values {
            if !knownAssets.contains(account.asset) {
                report.problems.append("account \(account.id) holds unknown asset \(account.asset)")
            }
            var entry = sums[account.asset] ?? (WideSum(), WideSum(), WideSum(), WideSum())
            entry.dp.add(account.debitsPosted)
            entry.cp.add(account.creditsPosted)
            entry.dq.add(account.debitsPending)
            entry.cq.add(account.creditsPending)
            sums[account.asset] = entry
            let debits = account.debitsPosted.addingReportingOverflow(account.debitsPending)
            let credits = account.creditsPosted.addingReportingOverflow(account.creditsPending)
            if account.flags.contains(.debitsMustNotExceedCredits), debits.overflow || debits.partialValue > account.creditsPosted {
                report.problems.append("account \(account.id) breaks debits_must_not_exceed_credits")
            }
            if account.flags.contains(.creditsMustNotExceedDebits), credits.overflow || credits.partialValue > account.debitsPosted {
                report.problems.append("account \(account.id) breaks credits_must_not_exceed_debits")
            }
        }
        for (asset, entry) in sums.sorted(by: { $0.key < $1.key }) {
            if entry.dp != entry.cp { report.problems.append("asset \(asset): posted debits and credits differ") }
            if entry.dq != entry.cq { report.problems.append("asset \(asset): pending debits and credits differ") }
        }

        // 4: replay. Holds count as pending only while their status is pending.
        var pending: [TransferID: PendingStatus] = [:]
        for row in try connection.query(LedgerStore.selectPending) {
            let status = try LedgerStore.pendingStatus(row)
            pending[status.transferID] = status
        }
        var replayed: [AccountID: Replayed] = [:]
        var holds: [TransferID: Transfer] = [:]
        var resolutions: [TransferID: TransferID] = [:]
        var lastTimestamp: UInt64 = 0
        var cursor: Int64 = Int64.min
        while true {
            let page = try connection.query(LedgerStore.selectTransfers + " WHERE timestamp > \(cursor) ORDER BY timestamp LIMIT \(pageSize)")
            for row in page {
                let transfer = try LedgerStore.transfer(row)
                report.transfers += 1
                if transfer.timestamp.nanoseconds <= lastTimestamp {
                    report.problems.append("transfer \(transfer.id): timestamp does not increase")
                }
                lastTimestamp = transfer.timestamp.nanoseconds
                for id in [transfer.debitAccountID, transfer.creditAccountID] {
                    guard let account = accounts[id] else {
                        report.problems.append("transfer \(transfer.id) names missing account \(id)")
                        continue
                    }
                    if account.asset != transfer.asset {
                        report.problems.append("transfer \(transfer.id) is in \(transfer.asset) but account \(id) holds \(account.asset)")
                    }
                }
                switch transfer.kind {
                case .posted, .postPending:
                    replayed[transfer.debitAccountID, default: Replayed()].debitsPosted.add(transfer.amount)
                    replayed[transfer.creditAccountID, default: Replayed()].creditsPosted.add(transfer.amount)
                    if transfer.kind == .postPending { resolutions[transfer.pendingID!] = transfer.id }
                case .pending:
                    holds[transfer.id] = transfer
                    if pending[transfer.id] == nil { report.problems.append("hold \(transfer.id) has no pending status") }
                case .voidPending:
                    resolutions[transfer.pendingID!] = transfer.id
                }
                if transfer.kind == .postPending || transfer.kind == .voidPending {
                    guard let hold = holds[transfer.pendingID!] else {
                        report.problems.append(
                            "transfer \(transfer.id) resolves hold \(transfer.pendingID!), which is not an earlier pending transfer"
                        )
                        continue
                    }
                    if transfer.amount > hold.amount {
                        report.problems.append("transfer \(transfer.id) posts more than its hold")
                    }
                }
            }
            guard page.count == pageSize, let last = page.last else { break }
            cursor = try last.int(1)
        }
        for (id, status) in pending {
            guard let hold = holds[id] else {
                report.problems.append("pending status \(id) has no hold transfer")
                continue
            }
            switch status.state {
            case .pending:
                report.holdsPending += 1
                replayed[hold.debitAccountID, default: Replayed()].debitsPending.add(hold.amount)
                replayed[hold.creditAccountID, default: Replayed()].creditsPending.add(hold.amount)
                if resolutions[id] != nil { report.problems.append("hold \(id) is pending but was resolved by \(resolutions[id]!)") }
            case .posted, .voided:
                if resolutions[id] == nil || resolutions[id] != status.resolvedBy {
                    report.problems.append("hold \(id) is \(status.state.rawValue) but no matching transfer resolves it")
                }
            case .expired:
                if let by = resolutions[id] { report.problems.append("hold \(id) expired but was also resolved by \(by)") }
            }
        }
        for account in accounts.values.sorted(by: { $0.id < $1.id }) {
            let expected = replayed[account.id] ?? Replayed()
            var stored = Replayed()
            stored.debitsPosted.add(account.debitsPosted)
            stored.creditsPosted.add(account.creditsPosted)
            stored.debitsPending.add(account.debitsPending)
            stored.creditsPending.add(account.creditsPending)
            if expected.debitsPosted != stored.debitsPosted || expected.creditsPosted != stored.creditsPosted
                || expected.debitsPending != stored.debitsPending || expected.creditsPending != stored.creditsPending
            {
                report.problems.append("account \(account.id): balances differ from the replay of its transfers")
            }
        }

        // 3: exactly one event per transfer.
        let transferEventTypes = [
            "ledger.transfer.posted", "ledger.transfer.pending", "ledger.transfer.pending_posted", "ledger.transfer.pending_voided",
        ]
        let placeholders = transferEventTypes.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        let eventCount = try connection.queryFirst(
            "SELECT count(*), count(DISTINCT subject) FROM hub_events WHERE type IN (\(placeholders))",
            transferEventTypes.map(SQLValue.text)
        )!
        let events = try eventCount.int(0)
        let distinct = try eventCount.int(1)
        if events != Int64(report.transfers) || distinct != events {
            report.problems.append("\(report.transfers) transfers but \(events) transfer events (\(distinct) distinct subjects)")
        }
        return report
    }
}
