/// Applies transfer requests to the balances loaded for one database transaction.
///
/// Pure: no I/O. ``LedgerStore`` loads what a group of requests touches, this applies them in
/// order, and the store writes back what changed, all in one transaction. Every check happens
/// before any mutation, so a refused transfer changes nothing; linked chains keep an undo journal
/// and roll back as a whole.
struct LedgerBatch {
    var accounts: [AccountID: Account]
    /// Transfers looked up from storage plus those created in this batch.
    var transfers: [TransferID: Transfer]
    var pending: [TransferID: PendingStatus]
    /// Transfer ids looked up in storage and not found: a request with one of them is new
    /// without another read. Sound for the write transaction that read them: only this batch
    /// creates transfers in it until it is written back (then the batch is dropped).
    var absentTransfers: Set<TransferID> = []
    private(set) var lastTimestamp: UInt64
    let now: UInt64

    private(set) var created: [Transfer] = []
    private(set) var events: [NewEvent] = []
    private(set) var dirtyAccounts: [AccountID] = []
    private(set) var dirtyPending: [TransferID] = []
    private var dirtyAccountSet: Set<AccountID> = []
    private var dirtyPendingSet: Set<TransferID> = []

    private enum Undo {
        case account(AccountID, Account)
        case pending(TransferID, PendingStatus?)
        case transfer(TransferID)
    }
    private var journal: [Undo]?

    init(
        accounts: [AccountID: Account],
        transfers: [TransferID: Transfer],
        pending: [TransferID: PendingStatus],
        lastTimestamp: UInt64,
        now: UInt64
    ) {
        self.accounts = accounts
        self.transfers = transfers
        self.pending = pending
        self.lastTimestamp = lastTimestamp
        self.now = now
    }

    /// Rows loaded from storage, merged in: a row the batch already holds (perhaps changed by
    /// it) is kept as the batch has it.
    mutating func absorb(
        accounts loaded: [AccountID: Account],
        transfers loadedTransfers: [TransferID: Transfer],
        pending loadedPending: [TransferID: PendingStatus]
    ) {
        accounts.merge(loaded) { kept, _ in kept }
        transfers.merge(loadedTransfers) { kept, _ in kept }
        pending.merge(loadedPending) { kept, _ in kept }
    }

    /// Moves the last timestamp up to `counter` when something else in the transaction used
    /// later ones: timestamps only ever increase.
    mutating func catchUp(to counter: UInt64) {
        lastTimestamp = max(lastTimestamp, counter)
    }

    /// The events of the transfers applied since the last call, handed to the caller (who
    /// appends them to the log at once, in their place among the unit's own events).
    mutating func takeEvents() -> [NewEvent] {
        defer { events = [] }
        return events
    }

    /// Whether anything awaits writing back.
    var hasChanges: Bool { !created.isEmpty || !dirtyAccounts.isEmpty || !dirtyPending.isEmpty }

    /// The ledger's limits on what a request may carry.
    enum Limits {
        static let metadataEntries = 32
        static let metadataKeyBytes = 64
        static let metadataValueBytes = 1024
        static let referenceFieldBytes = 128
    }

    // MARK: - Batches and linked chains

    /// Applies `requests` in order and returns one result per request.
    mutating func apply(_ requests: [TransferRequest]) -> [TransferResult] {
        var results: [TransferResult] = []
        results.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            var end = start
            while end < requests.count && requests[end].linked { end += 1 }
            if end == requests.count {
                // The last request says "linked" but nothing follows: the chain is open.
                for index in start..<requests.count {
                    let isLast = index == requests.count - 1
                    results.append(
                        .failed(
                            isLast
                                ? TransferError(.linkedEventChainOpen, "the last transfer of the batch is linked to nothing")
                                : TransferError(.linkedEventFailed, "a transfer linked to this one failed")
                        )
                    )
                }
                break
            }
            if start == end {
                results.append(applyOne(requests[start]))
            } else {
                results.append(contentsOf: applyChain(requests[start...end]))
            }
            start = end + 1
        }
        return results
    }

    private mutating func applyChain(_ chain: ArraySlice<TransferRequest>) -> [TransferResult] {
        let createdBefore = created.count
        let eventsBefore = events.count
        journal = []
        var results: [TransferResult] = []
        var failedAt: Int?
        for request in chain {
            let result = applyOne(request)
            results.append(result)
            if case .failed = result {
                failedAt = results.count - 1
                break
            }
        }
        // A chain is atomic: one that mixes retried (existing) members with new ones is not a retry
        // of what was recorded, so it is refused rather than half-applied.
        if failedAt == nil {
            let existing = results.filter { if case .exists = $0 { true } else { false } }.count
            if existing > 0 && existing < results.count {
                failedAt = results.firstIndex { if case .exists = $0 { true } else { false } }
            }
        }
        guard let failedAt else {
            journal = nil
            return results
        }
        for undo in (journal ?? []).reversed() {
            switch undo {
            case .account(let id, let old): accounts[id] = old
            case .pending(let id, let old): pending[id] = old
            case .transfer(let id): transfers[id] = nil
            }
        }
        journal = nil
        created.removeSubrange(createdBefore...)
        events.removeSubrange(eventsBefore...)
        return chain.indices.enumerated().map { position, _ in
            if position == failedAt, case .failed = results[position] { return results[position] }
            if position < results.count, case .exists = results[position] { return results[position] }
            return .failed(TransferError(.linkedEventFailed, "a transfer linked to this one failed"))
        }
    }

    // MARK: - One transfer

    private mutating func applyOne(_ request: TransferRequest) -> TransferResult {
        guard request.id.rawValue != 0 else {
            return .failed(TransferError(.idMustNotBeZero, "transfer id must not be zero", field: "id"))
        }
        if let error = Self.validateAnnotations(request) { return .failed(error) }
        if let prior = transfers[request.id] {
            if let field = Self.firstDifference(prior, request) {
                return .failed(
                    TransferError(
                        .existsWithDifferentFields,
                        "transfer \(request.id) already exists with a different \(field)",
                        field: field
                    )
                )
            }
            return .exists(prior)
        }
        switch request.action {
        case .post(let debit, let credit, let amount, let asset):
            return move(request, debit: debit, credit: credit, amount: amount, asset: asset, hold: nil)
        case .hold(let debit, let credit, let amount, let asset, let timeout):
            return move(request, debit: debit, credit: credit, amount: amount, asset: asset, hold: timeout)
        case .postPending(let pendingID, let amount):
            return resolve(request, pendingID: pendingID, postAmount: amount, post: true)
        case .voidPending(let pendingID):
            return resolve(request, pendingID: pendingID, postAmount: nil, post: false)
        }
    }

    private mutating func move(
        _ request: TransferRequest,
        debit: AccountID,
        credit: AccountID,
        amount: UInt128,
        asset: AssetCode,
        hold timeout: UInt32?
    ) -> TransferResult {
        guard amount > 0 else {
            return .failed(TransferError(.amountMustNotBeZero, "amount must be greater than zero", field: "amount"))
        }
        guard debit != credit else {
            return .failed(TransferError(.accountsMustBeDifferent, "debit and credit account are the same account \(debit)"))
        }
        guard var debitAccount = accounts[debit] else {
            return .failed(TransferError(.debitAccountNotFound, "debit account \(debit) does not exist", field: "debit_account_id"))
        }
        guard var creditAccount = accounts[credit] else {
            return .failed(TransferError(.creditAccountNotFound, "credit account \(credit) does not exist", field: "credit_account_id"))
        }
        if let refusal = Self.railOwnershipRefusal(
            request,
            accounts: [(debitAccount, "debit_account_id"), (creditAccount, "credit_account_id")]
        ) {
            return .failed(refusal)
        }
        guard debitAccount.asset == asset else {
            return .failed(
                TransferError(.assetMismatch, "debit account \(debit) holds \(debitAccount.asset), not \(asset)", field: "asset")
            )
        }
        guard creditAccount.asset == asset else {
            return .failed(
                TransferError(.assetMismatch, "credit account \(credit) holds \(creditAccount.asset), not \(asset)", field: "asset")
            )
        }
        // A wallet that cannot cover the amount is short of funds, however large the amount: that
        // comes before the 128-bit overflow check, which would otherwise answer a 2^128-1 request
        // from a 45.00 wallet with "overflows debits".
        let debitTotal = debitAccount.debitsPosted.addingReportingOverflow(debitAccount.debitsPending)
        let newDebitTotal = debitTotal.partialValue.addingReportingOverflow(amount)
        if debitAccount.flags.contains(.debitsMustNotExceedCredits),
            debitTotal.overflow || newDebitTotal.overflow || newDebitTotal.partialValue > debitAccount.creditsPosted
        {
            var error = TransferError(
                .exceedsCredits,
                "insufficient funds: account \(debit) has \(debitAccount.available) \(asset) minor units available, the transfer needs \(amount)",
                field: "amount"
            )
            error.shortfall = TransferError.Shortfall(asset: asset, available: debitAccount.available, requested: amount)
            return .failed(error)
        }
        // Every balance, and each account's posted + pending total, must stay within 128 bits.
        guard !debitTotal.overflow, !newDebitTotal.overflow else {
            return .failed(TransferError(.overflowsDebits, "the debit account's debits would exceed 2^128-1", field: "amount"))
        }
        let creditTotal = creditAccount.creditsPosted.addingReportingOverflow(creditAccount.creditsPending)
        let newCreditTotal = creditTotal.partialValue.addingReportingOverflow(amount)
        guard !creditTotal.overflow, !newCreditTotal.overflow else {
            return .failed(TransferError(.overflowsCredits, "the credit account's credits would exceed 2^128-1", field: "amount"))
        }
        if creditAccount.flags.contains(.creditsMustNotExceedDebits), newCreditTotal.partialValue > creditAccount.debitsPosted {
            return .failed(
                TransferError(.exceedsDebits, "account \(credit) may not be credited beyond its debits", field: "amount")
            )
        }

        let timestamp = nextTimestamp()
        if timeout != nil {
            debitAccount.debitsPending += amount
            creditAccount.creditsPending += amount
        } else {
            debitAccount.debitsPosted += amount
            creditAccount.creditsPosted += amount
        }
        setAccount(debitAccount)
        setAccount(creditAccount)
        let transfer = Transfer(
            id: request.id,
            kind: timeout == nil ? .posted : .pending,
            debitAccountID: debit,
            creditAccountID: credit,
            amount: amount,
            asset: asset,
            pendingID: nil,
            timeoutSeconds: timeout ?? 0,
            linked: request.linked,
            reference: request.reference,
            metadata: request.metadata,
            timestamp: timestamp
        )
        if let timeout {
            let expiresAt = timeout == 0 ? nil : LedgerTimestamp(nanoseconds: timestamp.nanoseconds + UInt64(timeout) * 1_000_000_000)
            setPending(PendingStatus(transferID: request.id, state: .pending, expiresAt: expiresAt, resolvedBy: nil, resolvedAt: nil))
        }
        record(transfer)
        return .created(transfer)
    }

    private mutating func resolve(
        _ request: TransferRequest,
        pendingID: TransferID,
        postAmount: UInt128?,
        post: Bool
    ) -> TransferResult {
        guard let hold = transfers[pendingID] else {
            return .failed(TransferError(.pendingTransferNotFound, "pending transfer \(pendingID) does not exist", field: "pending_id"))
        }
        guard hold.kind == .pending, var status = pending[pendingID] else {
            return .failed(
                TransferError(.pendingTransferNotPending, "transfer \(pendingID) is not a pending transfer", field: "pending_id")
            )
        }
        switch status.state {
        case .pending: break
        case .posted:
            return .failed(
                TransferError(.pendingTransferAlreadyPosted, "pending transfer \(pendingID) was already posted", field: "pending_id")
            )
        case .voided:
            return .failed(
                TransferError(.pendingTransferAlreadyVoided, "pending transfer \(pendingID) was already voided", field: "pending_id")
            )
        case .expired:
            return .failed(TransferError(.pendingTransferExpired, "pending transfer \(pendingID) has expired", field: "pending_id"))
        }
        if let expiresAt = status.expiresAt, expiresAt.nanoseconds <= now {
            return .failed(TransferError(.pendingTransferExpired, "pending transfer \(pendingID) has expired", field: "pending_id"))
        }
        let amount = post ? (postAmount ?? hold.amount) : hold.amount
        if post {
            guard amount > 0 else {
                return .failed(
                    TransferError(.amountMustNotBeZero, "post amount must be greater than zero (void the hold instead)", field: "amount")
                )
            }
            guard amount <= hold.amount else {
                return .failed(
                    TransferError(
                        .exceedsPendingTransferAmount,
                        "post amount \(amount) exceeds the pending amount \(hold.amount)",
                        field: "amount"
                    )
                )
            }
        }
        guard var debitAccount = accounts[hold.debitAccountID], var creditAccount = accounts[hold.creditAccountID] else {
            // The store loads both accounts of every hold a batch resolves.
            preconditionFailure("accounts of pending transfer \(pendingID) were not loaded")
        }
        if let refusal = Self.railOwnershipRefusal(request, accounts: [(debitAccount, "pending_id"), (creditAccount, "pending_id")]) {
            return .failed(refusal)
        }
        if post {
            // The hold already counted `hold.amount` against both accounts' totals and flags, and
            // posted balances only grow, so moving at most that much from pending to posted keeps
            // every total within 128 bits and every flag satisfied.
            debitAccount.debitsPosted += amount
            creditAccount.creditsPosted += amount
        }
        debitAccount.debitsPending -= hold.amount
        creditAccount.creditsPending -= hold.amount
        let timestamp = nextTimestamp()
        setAccount(debitAccount)
        setAccount(creditAccount)
        status.state = post ? .posted : .voided
        status.resolvedBy = request.id
        status.resolvedAt = timestamp
        setPending(status)
        let transfer = Transfer(
            id: request.id,
            kind: post ? .postPending : .voidPending,
            debitAccountID: hold.debitAccountID,
            creditAccountID: hold.creditAccountID,
            amount: amount,
            asset: hold.asset,
            pendingID: pendingID,
            timeoutSeconds: 0,
            linked: request.linked,
            reference: request.reference,
            metadata: request.metadata,
            timestamp: timestamp
        )
        record(transfer)
        return .created(transfer)
    }

    // MARK: - Expiry

    /// Voids an overdue hold on the ledger's own authority. Returns `false` when it is no longer
    /// pending or not yet due.
    mutating func expire(_ pendingID: TransferID) -> Bool {
        guard let hold = transfers[pendingID], var status = pending[pendingID], status.state == .pending,
            let expiresAt = status.expiresAt, expiresAt.nanoseconds <= now,
            var debitAccount = accounts[hold.debitAccountID], var creditAccount = accounts[hold.creditAccountID]
        else { return false }
        debitAccount.debitsPending -= hold.amount
        creditAccount.creditsPending -= hold.amount
        setAccount(debitAccount)
        setAccount(creditAccount)
        let timestamp = nextTimestamp()
        status.state = .expired
        status.resolvedAt = timestamp
        setPending(status)
        var json = JSONWriter()
        json.beginObject()
        json.field("pending_id", pendingID.description)
        json.field("debit_account_id", hold.debitAccountID.description)
        json.field("credit_account_id", hold.creditAccountID.description)
        json.field("amount", String(hold.amount))
        json.field("asset", hold.asset.rawValue)
        json.field("expired_at", timestamp.description)
        json.endObject()
        events.append(
            NewEvent(type: "ledger.transfer.pending_expired", source: "/ledger", subject: pendingID.description, data: json.text, time: timestamp)
        )
        return true
    }

    // MARK: - Bookkeeping

    private mutating func nextTimestamp() -> LedgerTimestamp {
        lastTimestamp = max(now, lastTimestamp + 1)
        return LedgerTimestamp(nanoseconds: lastTimestamp)
    }

    private mutating func setAccount(_ account: Account) {
        if journal != nil, let old = accounts[account.id] { journal!.append(.account(account.id, old)) }
        accounts[account.id] = account
        if dirtyAccountSet.insert(account.id).inserted { dirtyAccounts.append(account.id) }
    }

    private mutating func setPending(_ status: PendingStatus) {
        if journal != nil { journal!.append(.pending(status.transferID, pending[status.transferID])) }
        pending[status.transferID] = status
        if dirtyPendingSet.insert(status.transferID).inserted { dirtyPending.append(status.transferID) }
    }

    private mutating func record(_ transfer: Transfer) {
        if journal != nil { journal!.append(.transfer(transfer.id)) }
        transfers[transfer.id] = transfer
        created.append(transfer)
        events.append(
            NewEvent(
                type: transfer.eventType,
                source: "/ledger",
                subject: transfer.id.description,
                data: LedgerJSON.transfer(transfer),
                time: transfer.timestamp
            )
        )
    }

    /// Names the first field in which a retried request differs from what was recorded.
    static func firstDifference(_ recorded: Transfer, _ request: TransferRequest) -> String? {
        switch request.action {
        case .post(let debit, let credit, let amount, let asset):
            if recorded.kind != .posted { return "kind" }
            if recorded.debitAccountID != debit { return "debit_account_id" }
            if recorded.creditAccountID != credit { return "credit_account_id" }
            if recorded.amount != amount { return "amount" }
            if recorded.asset != asset { return "asset" }
        case .hold(let debit, let credit, let amount, let asset, let timeout):
            if recorded.kind != .pending { return "kind" }
            if recorded.debitAccountID != debit { return "debit_account_id" }
            if recorded.creditAccountID != credit { return "credit_account_id" }
            if recorded.amount != amount { return "amount" }
            if recorded.asset != asset { return "asset" }
            if recorded.timeoutSeconds != timeout { return "timeout_seconds" }
        case .postPending(let pendingID, let amount):
            if recorded.kind != .postPending { return "kind" }
            if recorded.pendingID != pendingID { return "pending_id" }
            if let amount, amount != recorded.amount { return "amount" }
        case .voidPending(let pendingID):
            if recorded.kind != .voidPending { return "kind" }
            if recorded.pendingID != pendingID { return "pending_id" }
        }
        if recorded.linked != request.linked { return "linked" }
        if recorded.reference != request.reference { return "ref" }
        if recorded.metadata != request.metadata { return "metadata" }
        return nil
    }

    /// Checks metadata and reference sizes.
    static func validateAnnotations(_ request: TransferRequest) -> TransferError? {
        if let error = validateMetadata(request.metadata) { return error }
        if let reference = request.reference {
            for (name, value) in [("ref.rail", reference.rail), ("ref.type", reference.type), ("ref.id", reference.id)] {
                guard (1...Limits.referenceFieldBytes).contains(value.utf8.count) else {
                    return TransferError(
                        .invalidField,
                        "\(name) must be 1 to \(Limits.referenceFieldBytes) bytes",
                        field: name
                    )
                }
            }
        }
        return nil
    }

    static func validateMetadata(_ metadata: [String: String]) -> TransferError? {
        guard metadata.count <= Limits.metadataEntries else {
            return TransferError(.invalidField, "metadata may have at most \(Limits.metadataEntries) entries", field: "metadata")
        }
        for (key, value) in metadata {
            guard (1...Limits.metadataKeyBytes).contains(key.utf8.count) else {
                return TransferError(.invalidField, "metadata keys must be 1 to \(Limits.metadataKeyBytes) bytes", field: "metadata")
            }
            guard value.utf8.count <= Limits.metadataValueBytes else {
                return TransferError(
                    .invalidField,
                    "metadata value of '\(key)' exceeds \(Limits.metadataValueBytes) bytes",
                    field: "metadata"
                )
            }
        }
        return nil
    }
}
