/// The transfer invariants (3, and the holds behind 4), checked over the transfers in
/// timestamp order and the holds' statuses in id order.
extension LedgerVerifier {
    /// The holds seen in the transfer log: their amounts, and which transfer resolved each.
    /// (Two ids and an amount per hold: the one part of the check that grows with the ledger.)
    struct Holds {
        var amounts: [TransferID: UInt128] = [:]
        var resolutions: [TransferID: TransferID] = [:]
    }

    /// Invariant 3 over the log, `pageSize` transfers at a time: timestamps strictly increase,
    /// both accounts exist and hold the transfer's asset, and every post or void of a hold names
    /// an earlier hold and moves no more than it. Counts the transfers into `report`.
    static func checkTransferLog(_ connection: any SQLConnection, pageSize: Int, into report: inout VerificationReport) throws -> Holds {
        // The accounts' assets come with each transfer (NULL: the account is missing), so no
        // account needs to be held in memory.
        let columns = LedgerStore.transferColumns.map { "t.\($0)" }.joined(separator: ", ")
        let query = """
            SELECT \(columns), d.asset, c.asset FROM ledger_transfers t
            LEFT JOIN ledger_accounts d ON d.id = t.debit_account_id
            LEFT JOIN ledger_accounts c ON c.id = t.credit_account_id
            WHERE t.timestamp > $1 ORDER BY t.timestamp LIMIT $2
            """
        let debitAsset = LedgerStore.transferColumns.count
        var holds = Holds()
        var lastTimestamp: UInt64 = 0
        var cursor = Int64.min
        while true {
            let page = try connection.query(query, [.int(cursor), .int(Int64(pageSize))])
            for row in page {
                let transfer = try LedgerStore.transfer(row)
                report.transfers += 1
                if transfer.timestamp.nanoseconds <= lastTimestamp {
                    report.problems.append("transfer \(transfer.id): timestamp does not increase")
                }
                lastTimestamp = transfer.timestamp.nanoseconds
                for (id, column) in [(transfer.debitAccountID, debitAsset), (transfer.creditAccountID, debitAsset + 1)] {
                    guard let asset = try row.optionalText(column) else {
                        report.problems.append("transfer \(transfer.id) names missing account \(id)")
                        continue
                    }
                    if asset != transfer.asset.rawValue {
                        report.problems.append("transfer \(transfer.id) is in \(transfer.asset) but account \(id) holds \(asset)")
                    }
                }
                report.problems += record(transfer, in: &holds)
            }
            guard page.count == pageSize, let last = page.last else { break }
            cursor = try last.int(1)
        }
        return holds
    }

    /// Notes a hold, or checks a hold's resolution against the hold it names.
    static func record(_ transfer: Transfer, in holds: inout Holds) -> [String] {
        switch transfer.kind {
        case .posted:
            return []
        case .pending:
            holds.amounts[transfer.id] = transfer.amount
            return []
        case .postPending, .voidPending:
            let holdID = transfer.pendingID!
            holds.resolutions[holdID] = transfer.id
            guard let held = holds.amounts[holdID] else {
                return ["transfer \(transfer.id) resolves hold \(holdID), which is not an earlier pending transfer"]
            }
            return transfer.amount > held ? ["transfer \(transfer.id) posts more than its hold"] : []
        }
    }

    /// Every hold has exactly one status, and the status agrees with the log: pending holds are
    /// unresolved (and counted into `report`), posted and voided ones were resolved by the
    /// transfer the status names, expired ones by none.
    static func checkHoldStatuses(_ connection: any SQLConnection, holds: Holds, pageSize: Int, into report: inout VerificationReport) throws {
        var withoutStatus = Set(holds.amounts.keys)
        var after: TransferID?
        while true {
            let start: SQL = after.map { " WHERE transfer_id > \($0)" } ?? ""
            let rows = try connection.query(LedgerStore.selectPending + start + " ORDER BY transfer_id LIMIT \(pageSize)")
            for row in rows {
                let status = try LedgerStore.pendingStatus(row)
                let id = status.transferID
                after = id
                guard withoutStatus.remove(id) != nil else {
                    report.problems.append("pending status \(id) has no hold transfer")
                    continue
                }
                let resolvedBy = holds.resolutions[id]
                switch status.state {
                case .pending:
                    report.holdsPending += 1
                    if let resolvedBy { report.problems.append("hold \(id) is pending but was resolved by \(resolvedBy)") }
                case .posted, .voided:
                    if resolvedBy == nil || resolvedBy != status.resolvedBy {
                        report.problems.append("hold \(id) is \(status.state.rawValue) but no matching transfer resolves it")
                    }
                case .expired:
                    if let resolvedBy { report.problems.append("hold \(id) expired but was also resolved by \(resolvedBy)") }
                }
            }
            guard rows.count == pageSize else { break }
        }
        report.problems += withoutStatus.sorted().map { "hold \($0) has no pending status" }
    }

    /// Invariant 3: exactly one event per transfer.
    static func transferEventMismatches(_ connection: any SQLConnection, transfers: Int) throws -> [String] {
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
        guard events != Int64(transfers) || distinct != events else { return [] }
        return ["\(transfers) transfers but \(events) transfer events (\(distinct) distinct subjects)"]
    }
}
