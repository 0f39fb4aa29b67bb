import Foundation

/// One unit of work: a writer's own rows, ledger transfers and events, committed together or not
/// at all (DESIGN §3.5).
///
/// A unit is the body of ``PluginContext/write(_:)`` (a rail) or ``Ledger/write(_:)`` (the
/// kernel). The kernel's writer runs many units in one database transaction, each under its own
/// savepoint: when a body throws, its rows, transfers and events are rolled back and its caller
/// gets the error, while the other units of the group commit. The event bus is nudged after the
/// commit, so nobody has to remember to.
///
/// A rail's unit reaches the database only through ``connection``, which refuses any statement
/// naming a table outside the rail's prefix (`ble_sessions_…`): the ledger's and the event log's
/// tables change only through ``submit(_:)``, ``createAccounts(_:)`` and ``emit(_:subject:data:)``,
/// which apply the ledger's rules.
///
/// Not `Sendable`: it lives only inside the body, on the database writer's thread.
public final class UnitOfWork {
    /// The connection for the unit's own statements; for a rail, checked against its table prefix.
    public let connection: any SQLConnection
    /// The ledger clock's reading when the group began: one time for everything the unit writes
    /// (its rows, its events, its transfers).
    public let now: LedgerTimestamp
    /// Who is writing: the kernel, or a rail with its table prefix and event source.
    public let owner: UnitOwner
    let database: any SQLConnection
    let clock: LedgerClock
    let maxBatchTransfers: Int
    /// The `Idempotency-Key` of the HTTP request this unit serves, if any.
    let claim: IdempotencyClaim?
    private(set) var transferResults: [TransferResult] = []

    init(
        connection: any SQLConnection,
        owner: UnitOwner,
        clock: LedgerClock,
        now: LedgerTimestamp,
        maxBatchTransfers: Int,
        claim: IdempotencyClaim? = nil
    ) {
        self.claim = claim
        self.database = connection
        self.connection = owner.checkedConnection(connection)
        self.owner = owner
        self.clock = clock
        self.now = now
        self.maxBatchTransfers = maxBatchTransfers
    }

    // MARK: Ledger

    /// Applies `requests` as ``Ledger/submit(_:)`` would, one result each, within this unit. A
    /// refused transfer changes nothing; whether that aborts the unit is the body's choice (throw
    /// to roll everything back).
    ///
    /// The rows a transfer touches are read (and row-locked) once per write transaction and its
    /// changes written back once, before the commit, for every unit of the group together
    /// (``TransactionState``); its events are appended at once, in their place among the unit's.
    public func submit(_ requests: [TransferRequest]) throws -> [TransferResult] {
        guard !requests.isEmpty else { return [] }
        guard requests.count <= maxBatchTransfers else {
            throw TransferError(.batchTooLarge, "a batch holds at most \(maxBatchTransfers) transfers, got \(requests.count)")
        }
        let (applied, events, lastTimestamp) = try withLedgerRows { batch in
            try LedgerStore.load(requests: requests, expiring: [], into: &batch, on: database)
            let applied = batch.apply(requests)
            return (applied, batch.takeEvents(), batch.lastTimestamp)
        }
        try Counters.write(.ledgerTimestamp, Int64(bitPattern: lastTimestamp), on: database)
        try EventLog.append(events, on: database)
        transferResults += applied
        return applied
    }

    /// Reads the ledger rows `keys` names into the group's shared rows in one go (row-locked on
    /// PostgreSQL), so that later ``submit(_:)`` calls find them there instead of reading each on
    /// its own. For a batched step (``BatchedStep``) that knows up front which accounts, holds
    /// and new transfer ids its members' transfers touch. A transfer id found absent is
    /// remembered as new.
    public func prefetch(_ keys: LedgerKeys) throws {
        guard !keys.isEmpty else { return }
        try withLedgerRows { batch in try LedgerStore.load(keys, into: &batch, on: database) }
    }

    /// Runs `body` on the write transaction's shared ledger rows (``TransactionState``), starting
    /// them when this is the transaction's first ledger work.
    private func withLedgerRows<Value>(_ body: (inout LedgerBatch) throws -> Value) throws -> Value {
        guard let transaction = database.activeTransaction else {
            throw DatabaseError(.query, "a unit of work runs inside the writer's transaction")
        }
        let counter = UInt64(bitPattern: try Counters.read(.ledgerTimestamp, on: database))
        // Taken out while it changes, so that the only other copy is the savepoint's snapshot.
        var batch = transaction.ledger ?? LedgerBatch(accounts: [:], transfers: [:], pending: [:], lastTimestamp: counter, now: now.nanoseconds)
        transaction.ledger = nil
        batch.catchUp(to: counter)
        defer { transaction.ledger = batch }
        return try body(&batch)
    }

    /// Applies one transfer within this unit.
    public func submit(_ request: TransferRequest) throws -> TransferResult {
        try submit([request])[0]
    }

    /// Creates accounts as ``Ledger/createAccounts(_:)`` would, within this unit.
    public func createAccounts(_ accounts: [NewAccount]) throws -> [CreateResult<Account>] {
        guard !accounts.isEmpty else { return [] }
        // Account creation reads the table: it sees the balances the unit's transfers left.
        try database.activeTransaction?.writeLedger(on: database)
        return try Ledger.createAccounts(accounts, on: database, clock: clock)
    }

    /// A hold's status as this unit sees it (row-locked on PostgreSQL until the commit).
    public func pendingStatus(_ id: TransferID) throws -> PendingStatus? {
        if let status = pendingLedger?.pending[id] { return status }
        return try LedgerStore.pendingStatus(id, locking: true, on: database)
    }

    /// A transfer as this unit sees it (a hold's amount, say), or `nil` when there is none.
    public func transfer(_ id: TransferID) throws -> Transfer? {
        if let transfer = pendingLedger?.transfers[id] { return transfer }
        return try LedgerStore.transfer(id, on: database)
    }

    /// The accounts that exist among `ids`, in id order, read inside the unit (row-locked on
    /// PostgreSQL so that another process cannot change them before this commits).
    public func accounts(_ ids: [AccountID]) throws -> [Account] {
        let held = pendingLedger?.accounts ?? [:]
        let unique = Set(ids)
        let read = try LedgerStore.accounts(unique.filter { held[$0] == nil }.sorted(), locking: true, on: database)
        return (unique.compactMap { held[$0] } + read).sorted { $0.id < $1.id }
    }

    /// The transaction's ledger rows not yet written back: what this unit's reads see first.
    private var pendingLedger: LedgerBatch? { database.activeTransaction?.ledger }

    // MARK: Answers

    /// Records `reply` as the answer to the HTTP request this unit serves, with the request's
    /// `Idempotency-Key` (when it has one and no other unit of the request answered): the key and
    /// the unit's writes then commit together, and a retry gets `reply` again.
    /// `reply` is built only then: a request without a key costs no encoding on the writer's
    /// thread, which every unit of the hub shares.
    /// - Returns: the reply when it was built, for the handler to send as it is rather than
    ///   encode it again.
    /// - Throws: when another request recorded the key first, an error that rolls this unit back
    ///   and answers the caller with that request's reply.
    @discardableResult
    public func answer(_ reply: @autoclosure () throws -> HTTPReply) throws -> HTTPReply? {
        guard let claim, claim.take() else { return nil }
        let reply = try reply()
        if defersAnswer {
            // Recorded with the batch's other answers once its body has run (GroupUnits).
            if !reply.noStore { deferredAnswer = (claim, reply) }
            return reply
        }
        try claim.record(reply, in: self)
        return reply
    }

    /// Set for the members of a batched step run together: their answers are recorded after the
    /// step's body, all at once (``IdempotencyClaim/recordAll(_:now:on:)``).
    var defersAnswer = false
    /// This member's answer waiting to be recorded.
    private(set) var deferredAnswer: (claim: IdempotencyClaim, reply: HTTPReply)?

    // MARK: Leases

    /// Proves this instance still holds `lease` (``Lease/fence(on:)``), in this unit's
    /// transaction: a unit of work done for a leader commits only while it leads.
    public func fence(_ lease: Lease) throws {
        try lease.fence(on: database)
    }

    // MARK: Events

    /// Appends an event with the unit's time and its owner's `source`; `data` is encoded as a
    /// JSON object with `snake_case` members.
    public func emit(_ type: String, subject: String?, data: some Encodable) throws {
        try append([NewEvent(type: type, source: owner.eventSource, subject: subject, data: EventJSON.text(data), time: now)])
    }

    /// Appends events built by the caller (their `source` must be the owner's).
    public func append(_ events: [NewEvent]) throws {
        if owner.tablePrefix != nil {
            for event in events where event.source != owner.eventSource {
                throw UnitError.foreignEventSource(event.source, owner: owner)
            }
        }
        if let declared = owner.eventTypes {
            for event in events where !declared.contains(event.type) {
                throw UnitError.undeclaredEventType(event.type, owner: owner)
            }
        }
        try EventLog.append(events, on: database)
    }
}

/// Who a unit of work belongs to.
public struct UnitOwner: Sendable, Hashable, CustomStringConvertible {
    /// The table prefix its statements are held to; `nil` for the kernel.
    public let tablePrefix: String?
    /// The CloudEvents `source` of its events.
    public let eventSource: String
    /// The event types it may append; `nil` for the kernel.
    public let eventTypes: Set<String>?

    /// The kernel: the ledger and the services around it, writing their own tables.
    public static let kernel = UnitOwner(tablePrefix: nil, eventSource: "/ledger", eventTypes: nil)

    /// A rail: `ble-sessions` writes only `ble_sessions_…` tables, its events come from
    /// `/rails/ble-sessions` and have one of the types it declared.
    public static func rail(_ pluginID: String, eventTypes: some Sequence<String>) -> UnitOwner {
        UnitOwner(tablePrefix: PluginID.tablePrefix(pluginID), eventSource: "/rails/\(pluginID)", eventTypes: Set(eventTypes))
    }

    /// A kernel component writing under its own event source (e.g. `/identity`).
    public static func kernel(source: String) -> UnitOwner {
        UnitOwner(tablePrefix: nil, eventSource: source, eventTypes: nil)
    }

    public var description: String { tablePrefix.map { "the rail writing \($0)* tables" } ?? "the kernel" }

    /// Hashes the names only: owners that are equal have equal names, and the writer hashes an
    /// owner for every batched request it groups, where hashing the set of types would cost more.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tablePrefix)
        hasher.combine(eventSource)
    }

    /// The connection a unit of this owner runs its own statements on: a rail's held to its
    /// prefix, the kernel's writing the group's shared ledger rows back before each statement.
    func checkedConnection(_ connection: any SQLConnection) -> any SQLConnection {
        guard let tablePrefix else { return LedgerSyncedConnection(connection) }
        return PrefixedConnection(connection, prefix: tablePrefix)
    }
}

/// Errors of the unit-of-work API itself (a rail breaking its rules), as opposed to the body's own.
public enum UnitError: Error, Sendable, CustomStringConvertible {
    case foreignTable(String, prefix: String, statement: String)
    case foreignEventSource(String, owner: UnitOwner)
    case undeclaredEventType(String, owner: UnitOwner)
    case batchResultCount(Int, members: Int)

    public var description: String {
        switch self {
        case .foreignTable(let table, let prefix, let statement):
            "a rail writes only its own tables (\(prefix)*); this statement names \(table): \(statement)"
        case .foreignEventSource(let source, let owner):
            "\(owner) appends events as \(owner.eventSource), not \(source)"
        case .undeclaredEventType(let type, let owner):
            "\(owner) appends only the event types its plugin declares (RailPlugin.eventTypes), not '\(type)'"
        case .batchResultCount(let results, let members):
            "a batched step answers each of its \(members) members once, not with \(results) results"
        }
    }
}

/// The JSON of event payloads: `snake_case` members, sorted, slashes unescaped (stable bytes for
/// the same payload, which webhooks sign).
public enum EventJSON {
    public static func text(_ value: some Encodable) throws -> String {
        String(decoding: try HubJSON.encoder.encodeBytes(value), as: UTF8.self)
    }
}
