import HubKernel

/// A session and its locks as a batch of steps sees them: read once, row-locked, and changed in
/// memory as each member's step is applied, in step with the rows it writes.
struct SessionWithLocks: Sendable {
    var session: PaymentSession
    /// Oldest first.
    var locks: [SessionLock]

    /// Puts `lock`'s new state in place of its old one, or adds it when it is new.
    mutating func record(_ lock: SessionLock) {
        if let index = locks.firstIndex(where: { $0.id == lock.id }) {
            locks[index] = lock
        } else {
            locks.append(lock)
        }
    }
}

/// What a batch of share steps changes in the rail's tables, gathered while its members' steps
/// are applied and written after the last of them: one multi-row statement for each kind of row
/// (``SessionStore``) instead of one statement a member. A session several members change is
/// written once, in the state the last of them left it.
struct ShareWrites {
    private var changedSessions: Set<String> = []
    private var newLocks: [SessionLock] = []
    private var paidLocks: [SessionLock] = []

    mutating func insert(_ lock: SessionLock) { newLocks.append(lock) }
    mutating func paid(_ lock: SessionLock) { paidLocks.append(lock) }
    mutating func changed(_ session: PaymentSession) { changedSessions.insert(session.id) }

    /// Writes the rows: each changed session as `states` holds it now, in id order.
    func write(_ states: [String: SessionWithLocks], on connection: any SQLConnection) throws {
        try SessionStore.update(changedSessions.sorted().compactMap { states[$0]?.session }, on: connection)
        try SessionStore.insert(newLocks, on: connection)
        try SessionStore.update(paidLocks, on: connection)
    }
}

/// The two steps a payer takes on a session, lock and pay, as batched steps
/// (``BatchedStep``): every lock (or pay) waiting for the same group commit runs in one batch,
/// which reads the sessions, their locks and the ledger rows it needs once, then applies each
/// member's step in arrival order, in memory, writing each member's rows, events and answer.
/// A session named by several members sees each one's step in turn, so "first lock wins" and
/// "one payment per share" hold as they would one unit at a time.
enum ShareSteps {
    /// One payer's lock or pay on one session.
    struct Request: Sendable {
        let sessionID: String
        let payer: UserID
        /// Whether the step's ``Answered/reply`` is the request's HTTP answer, recorded with its
        /// `Idempotency-Key` in the step's unit; `false` for a caller that answers in a shape of its
        /// own (the Gotchu surface), whose reply the kernel's middleware records.
        let answersRequest: Bool
    }

    /// One member's step applied, or a refusal.
    typealias Outcome = SessionService.Outcome<Answered>
    typealias Step = BatchedStep<Request, Outcome>

    /// A done step: the session and the payer's lock, and the HTTP answer made of them (the
    /// session with the lock, ``SessionWithLockRepresentation``), encoded once on the writer's
    /// thread. Its JSON is also the data of the step's event and the reply recorded with the
    /// request's `Idempotency-Key`, so nothing encodes the two a second time.
    struct Answered: Sendable {
        let session: PaymentSession
        let lock: SessionLock
        let reply: HTTPReply

        init(_ session: PaymentSession, _ lock: SessionLock) throws {
            self.session = session
            self.lock = lock
            reply = try .json(SessionWithLockRepresentation(session: SessionRepresentation(session), lock: LockRepresentation(lock)))
        }

        var value: (PaymentSession, SessionLock) { (session, lock) }
    }

    static func lockStep(lockTTL: Int, source: String) -> Step {
        Step { members in
            try run(members) { sessions, members in
                // Each member's new hold id, and what its hold will touch, read in one go.
                let holdIDs = members.map { _ in TransferID.timeOrdered() }
                var keys = LedgerKeys()
                for (member, holdID) in zip(members, holdIDs) {
                    guard let session = sessions[member.request.sessionID]?.session else { continue }
                    keys.transfers.insert(holdID)
                    keys.accounts.insert(AccountID.wallet(user: member.request.payer, asset: session.asset))
                    keys.accounts.insert(session.payeeAccountID)
                }
                try members[0].unit.prefetch(keys)
                return { index, state, writes in
                    try lock(
                        members[index].request.payer,
                        holdID: holdIDs[index],
                        in: &state,
                        writes: &writes,
                        tx: members[index].unit,
                        lockTTL: lockTTL,
                        source: source
                    )
                }
            }
        }
    }

    static func payStep(source: String) -> Step {
        Step { members in
            try run(members) { sessions, members in
                // Each member's new payment id and the holds it may post, read in one go.
                let paymentIDs = members.map { _ in TransferID.timeOrdered() }
                var keys = LedgerKeys()
                for (member, paymentID) in zip(members, paymentIDs) {
                    guard let locks = sessions[member.request.sessionID]?.locks else { continue }
                    keys.transfers.insert(paymentID)
                    for lock in locks where lock.payerID == member.request.payer && lock.state == .held {
                        keys.pending.insert(lock.holdID)
                    }
                }
                try members[0].unit.prefetch(keys)
                return { index, state, writes in
                    try pay(
                        members[index].request.payer,
                        paymentID: paymentIDs[index],
                        in: &state,
                        writes: &writes,
                        tx: members[index].unit,
                        source: source
                    )
                }
            }
        }
    }

    /// Reads the members' sessions, lets `prepare` read what else they need and return the step
    /// for one member, applies it to each member in turn, records each answer and writes what
    /// the members changed.
    private static func run(
        _ members: [Step.Member],
        prepare: ([String: SessionWithLocks], [Step.Member]) throws -> (Int, inout SessionWithLocks, inout ShareWrites) throws -> Outcome
    ) throws -> [Outcome] {
        guard let first = members.first else { return [] }
        var sessions = try SessionStore.sessionsForUpdateWithLocks(Set(members.map(\.request.sessionID)), on: first.unit.connection)
        let step = try prepare(sessions, members)
        var writes = ShareWrites()
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(members.count)
        for (index, member) in members.enumerated() {
            let outcome: Outcome
            if var state = sessions[member.request.sessionID] {
                outcome = try step(index, &state, &writes)
                // A refusal keeps what it changed (a lapsed lock released): it commits too.
                sessions[member.request.sessionID] = state
            } else {
                outcome = .refused(SessionRefusal.notFound())
            }
            if member.request.answersRequest { try record(outcome, on: member.unit) }
            outcomes.append(outcome)
        }
        try writes.write(sessions, on: first.unit.connection)
        return outcomes
    }

    /// Records the request's answer with its `Idempotency-Key`, when it has one: the reply when
    /// the step is done (the bytes the handler then sends), the refusal's problem when it is
    /// refused (a refusal is the request's final answer too).
    private static func record(_ outcome: Outcome, on tx: UnitOfWork) throws {
        switch outcome {
        case .done(let answered): try tx.answer(answered.reply)
        case .refused(let refusal): try tx.answer(Problem(refusal).reply)
        }
    }

    // MARK: Lock

    /// Locks a share for `payer` and holds its amount on their wallet; a lock the payer holds
    /// already is returned as it is.
    private static func lock(
        _ payer: UserID,
        holdID: TransferID,
        in state: inout SessionWithLocks,
        writes: inout ShareWrites,
        tx: UnitOfWork,
        lockTTL: Int,
        source: String
    ) throws -> Outcome {
        let now = tx.now
        let session = state.session
        if session.status.isFinal { return .refused(SessionRefusal.ended(session)) }
        if session.expiresAt <= now { return .refused(SessionRefusal.expired(session)) }
        guard payer != session.payeeID else { return .refused(SessionRefusal.cannotPaySelf()) }
        if let mine = state.locks.first(where: { $0.payerID == payer && $0.state == .held }) {
            if mine.expiresAt > now { return .done(try Answered(session, mine)) }
            // Lapsed but not yet swept: release it here and take a fresh lock below.
            state.record(try SessionService.expire(mine, of: &state.session, at: now, on: tx, source: source))
        }
        if state.locks.contains(where: { $0.payerID == payer && $0.state == .paid }) {
            return .refused(SessionRefusal.shareAlreadyPaid())
        }
        guard let share = SessionService.freeShare(of: state.session, locks: state.locks) else { return .refused(SessionRefusal.busy()) }

        let amount = state.session.shareAmount(share)
        let payerAccount = AccountID.wallet(user: payer, asset: state.session.asset)
        let expiresAt = min(now.adding(seconds: lockTTL), state.session.expiresAt)
        // The ledger's own timeout is a backstop, a little later than the lock's: the sweeper
        // normally voids the hold itself, with the event that says why.
        let holdSeconds = UInt32(max(1, (expiresAt.nanoseconds - now.nanoseconds) / 1_000_000_000 + 30))
        let hold = TransferRequest(
            id: holdID,
            action: .hold(
                debit: payerAccount,
                credit: state.session.payeeAccountID,
                amount: amount,
                asset: state.session.asset,
                timeoutSeconds: holdSeconds
            ),
            reference: SessionService.reference(state.session.id),
            metadata: ["share": String(share)]
        )
        switch try tx.submit(hold) {
        case .created, .exists: break
        case .failed(let error):
            switch error.code {
            case .exceedsCredits: return .refused(SessionRefusal.insufficientFunds(amount, state.session.asset))
            case .debitAccountNotFound: return .refused(SessionRefusal.noWallet(state.session.asset))
            default: return .refused(SessionRefusal.ledgerRefused(error))
            }
        }
        let lock = SessionLock(
            id: RecordID.timeOrdered().description,
            sessionID: state.session.id,
            share: share,
            payerID: payer,
            payerAccountID: payerAccount,
            amount: amount,
            holdID: holdID,
            state: .held,
            lockedAt: now,
            expiresAt: expiresAt
        )
        writes.insert(lock)
        state.record(lock)
        state.session.heldShares += 1
        state.session.settleStatus()
        writes.changed(state.session)
        let answered = try Answered(state.session, lock)
        try tx.append([SessionEvents.event(SessionEvents.locked, answered, at: now, source: source)])
        return .done(answered)
    }

    // MARK: Pay

    /// Posts the hold of `payer`'s lock: the share is paid, and the session when every share is.
    private static func pay(
        _ payer: UserID,
        paymentID: TransferID,
        in state: inout SessionWithLocks,
        writes: inout ShareWrites,
        tx: UnitOfWork,
        source: String
    ) throws -> Outcome {
        let now = tx.now
        guard payer != state.session.payeeID else { return .refused(SessionRefusal.cannotPaySelf()) }
        let mine = state.locks.filter { $0.payerID == payer }
        guard var lock = mine.last(where: { $0.state == .held }) else {
            if mine.contains(where: { $0.state == .paid }) { return .refused(SessionRefusal.shareAlreadyPaid()) }
            if state.session.status.isFinal { return .refused(SessionRefusal.ended(state.session)) }
            if state.session.expiresAt <= now { return .refused(SessionRefusal.expired(state.session)) }
            if let lapsed = mine.last, lapsed.state == .expired { return .refused(SessionRefusal.lockExpired(lapsed)) }
            return .refused(SessionRefusal.notLocked())
        }
        if lock.expiresAt <= now {
            state.record(try SessionService.expire(lock, of: &state.session, at: now, on: tx, source: source))
            return .refused(SessionRefusal.lockExpired(lock))
        }
        let payment = TransferRequest(
            id: paymentID,
            action: .postPending(pendingID: lock.holdID, amount: nil),
            reference: SessionService.reference(state.session.id)
        )
        switch try tx.submit(payment) {
        case .created, .exists: break
        case .failed(let error) where error.code == .pendingTransferExpired || error.code == .pendingTransferAlreadyVoided:
            // The ledger's backstop timeout got there first; the money never moved.
            state.record(try SessionService.expire(lock, of: &state.session, at: now, on: tx, source: source, holdAlreadyReleased: true))
            return .refused(SessionRefusal.lockExpired(lock))
        case .failed(let error):
            throw error
        }
        lock.state = .paid
        lock.resolvedAt = now
        lock.paymentID = paymentID
        writes.paid(lock)
        state.record(lock)
        state.session.heldShares -= 1
        state.session.paidShares += 1
        state.session.settleStatus()
        if state.session.status == .paid { state.session.endedAt = now }
        writes.changed(state.session)
        let answered = try Answered(state.session, lock)
        try tx.append([SessionEvents.event(SessionEvents.paid, answered, at: now, source: source)])
        return .done(answered)
    }
}
