import Foundation
import HubKernel

/// The session state machine. Each transition runs in one unit of work of the rail
/// (``PluginContext/write(_:)``): the session row (locked), the lock rows, the ledger hold or
/// payment, and the event commit together, and transactions on one session run one at a time, so
/// "first lock wins" and "one payment per share" hold under any concurrency, on both backends.
/// Opening, locking and paying, the steps every session and payer takes, are batched steps
/// (``OpenSessionStep``, ``ShareSteps``): those waiting for one commit share their statements, and
/// each still sees the ones before it.
/// Refusals are ``SessionRefusal``s, domain errors the kernel answers as problems.
struct SessionService: Sendable {
    /// The kernel as the rail sees it: its units of work, its reads, the ledger and identity.
    let context: PluginContext
    let configuration: BLESessionsConfiguration
    /// The steps every session and payer takes, each batched across the requests waiting for
    /// one commit.
    let openStep: OpenSessionStep.Step
    let lockStep: ShareSteps.Step
    let payStep: ShareSteps.Step
    let knownWallets = KnownWallets()

    init(context: PluginContext, configuration: BLESessionsConfiguration) {
        self.context = context
        self.configuration = configuration
        openStep = OpenSessionStep.step(source: context.eventSource)
        lockStep = ShareSteps.lockStep(lockTTL: configuration.lockTTLSeconds, source: context.eventSource)
        payStep = ShareSteps.payStep(source: context.eventSource)
    }

    var ledger: RailLedger { context.ledger }
    var database: DatabaseReader { context.database }
    var identity: Identity { context.identity }
    var clock: LedgerClock { context.clock }
    var source: String { context.eventSource }

    /// A transition's result: done, or refused after committing what the refusal itself changed
    /// (a pay that finds its lock expired releases the lock, then tells the payer).
    enum Outcome<Value: Sendable>: Sendable {
        case done(Value)
        case refused(SessionRefusal)

        func get() throws -> Value {
            switch self {
            case .done(let value): return value
            case .refused(let refusal): throw refusal
            }
        }
    }

    struct NewSession: Sendable {
        var payee: UserID
        /// The payee's name as the request's principal carries it; read from identity when `nil`.
        var payeeDisplayName: String?
        var amount: UInt128
        var asset: AssetCode?
        var ttlSeconds: Int?
        var splitMode: PaymentSession.SplitMode = .single
        var payers = 1
    }

    static let maxPayers = 100

    // MARK: Create

    func create(_ new: NewSession) async throws -> PaymentSession {
        guard let code = new.asset ?? configuration.defaultAsset else {
            throw SessionRefusal.invalid("asset", "Name the asset: this hub has no default asset for sessions.")
        }
        let ttl = new.ttlSeconds ?? configuration.sessionTTLSeconds
        guard (10...configuration.maxSessionTTLSeconds).contains(ttl) else {
            throw SessionRefusal.invalid("ttl_seconds", "A session lasts 10 to \(configuration.maxSessionTTLSeconds) seconds, not \(ttl).")
        }
        guard new.amount > 0 else { throw SessionRefusal.invalid("amount", "The amount must be at least one minor unit.") }
        switch new.splitMode {
        case .single:
            guard new.payers == 1 else { throw SessionRefusal.invalid("split.payers", "A single-payer session has exactly one payer.") }
        case .equal:
            guard (2...Self.maxPayers).contains(new.payers) else {
                throw SessionRefusal.invalid("split.payers", "An equal split has 2 to \(Self.maxPayers) payers, not \(new.payers).")
            }
            guard new.amount >= UInt128(new.payers) else {
                throw SessionRefusal.invalid("amount", "\(new.amount) minor units cannot be split into \(new.payers) shares of at least one unit.")
            }
        }
        let wallet = AccountID.wallet(user: new.payee, asset: code)
        if !knownWallets.contains(wallet) {
            guard try await ledger.asset(code) != nil else {
                throw SessionRefusal.noAsset(code)
            }
            _ = try await ledger.wallet(of: new.payee, asset: code)
            knownWallets.insert(wallet)
        }
        // Principals always name real users in production, and carry their names; a session
        // opened for an id without a profile (as some tests do) shows a neutral name rather than
        // failing.
        let displayName: String
        if let name = new.payeeDisplayName {
            displayName = name
        } else {
            displayName = try await identity.users.user(new.payee)?.displayName ?? "Payee"
        }
        let request = OpenSessionStep.Request(
            payee: new.payee,
            payeeAccountID: wallet,
            payeeDisplayName: displayName,
            asset: code,
            amount: new.amount,
            splitMode: new.splitMode,
            shares: new.payers,
            ttlSeconds: ttl
        )
        return try await context.write(request, batchedIn: openStep)
    }

    /// A fresh EID recorded for the session; draws again on the rare collision.
    static func issueEID(for session: String, at time: LedgerTimestamp, on connection: any SQLConnection) throws -> EphemeralID {
        for _ in 0..<8 {
            let eid = EphemeralID.random()
            if try SessionStore.insertEID(eid, session: session, at: time, on: connection) { return eid }
        }
        throw DatabaseError(.query, "no free session id after 8 draws of 40 random bits")
    }

    // MARK: Resolve

    /// The session an EID names, for a payer nearby. A replaced EID resolves during its grace
    /// period only; an expired or cancelled session is gone.
    func resolve(_ eid: EphemeralID) async throws -> (PaymentSession, nextShare: Int) {
        let found = try await database.read { connection -> (PaymentSession, [SessionLock])? in
            guard let (session, validUntil) = try SessionStore.lookup(eid, on: connection) else { return nil }
            if let validUntil, validUntil <= clock.now() { return nil }
            return (session, try SessionStore.locks(session: session.id, on: connection))
        }
        guard let (session, locks) = found else { throw SessionRefusal.unknownEID() }
        if session.status == .expired || (!session.status.isFinal && session.expiresAt <= clock.now()) {
            throw SessionRefusal.expired(session)
        }
        if session.status == .cancelled { throw SessionRefusal.cancelled() }
        return (session, Self.freeShare(of: session, locks: locks) ?? 0)
    }

    /// The lowest share that is neither held nor paid.
    static func freeShare(of session: PaymentSession, locks: [SessionLock]) -> Int? {
        let taken = Set(locks.filter { $0.state == .held || $0.state == .paid }.map(\.share))
        return (0..<session.shares).first { !taken.contains($0) }
    }

    // MARK: Lock and pay

    /// Locks a share for `payer` and holds its amount on their wallet. Repeating the call while
    /// the lock stands returns the same lock. Batched with the other locks waiting for the same
    /// commit (``ShareSteps``).
    func lock(_ sessionID: String, payer: UserID) async throws -> (PaymentSession, SessionLock) {
        try await step(lockStep, sessionID, payer: payer, answersRequest: false).value
    }

    /// ``lock(_:payer:)`` for the rail's HTTP request: the session with the lock, recorded with
    /// the request's `Idempotency-Key` in the step's unit of work when there is one.
    func lockReply(_ sessionID: String, payer: UserID) async throws -> HTTPReply {
        try await step(lockStep, sessionID, payer: payer, answersRequest: true).reply
    }

    /// Posts the hold of `payer`'s lock: the share is paid, and the session when every share is.
    /// Batched with the other payments waiting for the same commit (``ShareSteps``).
    func pay(_ sessionID: String, payer: UserID) async throws -> (PaymentSession, SessionLock) {
        try await step(payStep, sessionID, payer: payer, answersRequest: false).value
    }

    /// ``pay(_:payer:)`` for the rail's HTTP request, answered as ``lockReply(_:payer:)`` is.
    func payReply(_ sessionID: String, payer: UserID) async throws -> HTTPReply {
        try await step(payStep, sessionID, payer: payer, answersRequest: true).reply
    }

    private func step(_ step: ShareSteps.Step, _ sessionID: String, payer: UserID, answersRequest: Bool) async throws -> ShareSteps.Answered {
        try await context.write(ShareSteps.Request(sessionID: sessionID, payer: payer, answersRequest: answersRequest), batchedIn: step).get()
    }

    // MARK: Cancel and rotate

    /// Ends an unpaid session for its payee, releasing every held share. Shares already paid stay
    /// paid: that money has moved.
    func cancel(_ sessionID: String, by principal: Principal) async throws -> PaymentSession {
        let source = self.source
        return try await context.write { tx -> Outcome<PaymentSession> in
            let now = tx.now
            guard var session = try SessionStore.session(sessionID, forUpdate: true, on: tx.connection),
                session.payeeID == principal.userID || principal.isAdmin
            else { return .refused(SessionRefusal.notFound()) }
            if session.status.isFinal { return .refused(SessionRefusal.ended(session)) }
            let released = try Self.releaseHeld(of: &session, at: now, on: tx)
            session.status = .cancelled
            session.endedAt = now
            try SessionStore.update(session, on: tx.connection)
            try tx.append(
                [SessionEvents.event(SessionEvents.cancelled, session, released: released, at: now, source: source)])
            return .done(session)
        }.get()
    }

    /// Gives an open session a new EID; the old one resolves for the grace period only.
    func rotate(_ sessionID: String, by principal: Principal) async throws -> PaymentSession {
        let grace = configuration.eidGraceSeconds
        let source = self.source
        return try await context.write { tx -> Outcome<PaymentSession> in
            guard var session = try SessionStore.session(sessionID, forUpdate: true, on: tx.connection),
                session.payeeID == principal.userID || principal.isAdmin
            else { return .refused(SessionRefusal.notFound()) }
            if session.status.isFinal { return .refused(SessionRefusal.ended(session)) }
            try Self.rotate(&session, grace: grace, at: tx.now, on: tx, source: source)
            return .done(session)
        }.get()
    }

    static func rotate(_ session: inout PaymentSession, grace: Int, at now: LedgerTimestamp, on tx: UnitOfWork, source: String) throws {
        let previous = session.eid
        let validUntil = now.adding(seconds: grace)
        try SessionStore.retireEID(previous, validUntil: validUntil, on: tx.connection)
        session.eid = try issueEID(for: session.id, at: now, on: tx.connection)
        session.eidIssuedAt = now
        try SessionStore.update(session, on: tx.connection)
        try tx.append([SessionEvents.event(SessionEvents.eidRotated, session, previousEID: (previous, validUntil), at: now, source: source)])
    }

    // MARK: Shared steps

    /// Expires one held lock: voids its hold (unless the ledger already did), reopens its share
    /// and appends `ble.session.lock_expired`. Returns the lock as it now is.
    @discardableResult
    static func expire(
        _ lock: SessionLock,
        of session: inout PaymentSession,
        at now: LedgerTimestamp,
        on tx: UnitOfWork,
        source: String,
        holdAlreadyReleased: Bool = false
    ) throws -> SessionLock {
        if !holdAlreadyReleased { try voidHold(lock, on: tx) }
        var lock = lock
        lock.state = .expired
        lock.resolvedAt = now
        try SessionStore.update(lock, on: tx.connection)
        session.heldShares -= 1
        session.settleStatus()
        try SessionStore.update(session, on: tx.connection)
        try tx.append([SessionEvents.event(SessionEvents.lockExpired, session, lock: lock, at: now, source: source)])
        return lock
    }

    /// Releases every held lock of a session that is ending; the caller writes the session.
    static func releaseHeld(of session: inout PaymentSession, at now: LedgerTimestamp, on tx: UnitOfWork) throws -> [SessionLock] {
        var released: [SessionLock] = []
        for var lock in try SessionStore.locks(session: session.id, state: .held, on: tx.connection) {
            try voidHold(lock, on: tx)
            lock.state = .released
            lock.resolvedAt = now
            try SessionStore.update(lock, on: tx.connection)
            released.append(lock)
        }
        session.heldShares = 0
        return released
    }

    /// Every transfer of the rail names it and its session: stats and the console count it as this
    /// rail's, and the kernel API refuses to resolve its holds.
    static func reference(_ sessionID: String) -> TransferReference {
        TransferReference(rail: BLESessionsPlugin.id, type: "session", id: sessionID)
    }

    /// Voids a lock's hold; a hold the ledger already expired or voided needs nothing more.
    private static func voidHold(_ lock: SessionLock, on tx: UnitOfWork) throws {
        let result = try tx.submit(
            TransferRequest(id: .timeOrdered(), action: .voidPending(pendingID: lock.holdID), reference: reference(lock.sessionID))
        )
        if case .failed(let error) = result,
            error.code != .pendingTransferExpired && error.code != .pendingTransferAlreadyVoided
        {
            throw error
        }
    }
}

extension LedgerTimestamp {
    func adding(seconds: Int) -> LedgerTimestamp {
        LedgerTimestamp(nanoseconds: nanoseconds + UInt64(seconds) * 1_000_000_000)
    }
}
