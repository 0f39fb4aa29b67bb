/// An event about to be appended to the outbox, in CloudEvents 1.0 terms.
public struct NewEvent: Sendable, Equatable {
    /// Dotted type, e.g. `ledger.transfer.posted`.
    public var type: String
    /// The producer, e.g. `/ledger` or `/rails/ble-sessions`.
    public var source: String
    /// What the event is about, usually an id.
    public var subject: String?
    /// The payload as JSON text (an object).
    public var data: String
    public var time: LedgerTimestamp

    public init(type: String, source: String, subject: String?, data: String, time: LedgerTimestamp) {
        self.type = type
        self.source = source
        self.subject = subject
        self.data = data
        self.time = time
    }
}

/// An event as stored, with its hub-wide sequence number.
public struct EventRecord: Sendable, Equatable {
    public var sequence: Int64
    public var id: String
    public var type: String
    public var source: String
    public var subject: String?
    public var time: String
    public var data: String
}

/// The transactional outbox: events are appended by the same database transaction that makes the
/// change they describe. Sequence numbers come from a counter row updated in that transaction, so
/// they are gapless and in commit order (the row lock serialises writers on PostgreSQL).
public enum EventLog {
    static let columns = ["sequence", "id", "type", "source", "subject", "time", "data"]
    static let select: SQL = "SELECT sequence, id, type, source, subject, time, data FROM hub_events"

    /// Appends `events` and returns the sequence number of the last one.
    @discardableResult
    public static func append(_ events: [NewEvent], on connection: any SQLConnection) throws -> Int64 {
        guard !events.isEmpty else { return try Counters.read(.eventSequence, on: connection) }
        var sequence = try Counters.read(.eventSequence, on: connection)
        // Event ids are random UUIDs. One seed from the system generator per append, then a fast
        // generator: a getrandom(2) call per id cost more than the rest of the event.
        var ids = EventIDGenerator()
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(events.count)
        for event in events {
            sequence += 1
            rows.append([
                .int(sequence), .text(ids.next()), .text(event.type), .text(event.source),
                .optional(event.subject.map(SQLValue.text)), .text(RFC3339.format(nanoseconds: event.time.nanoseconds)),
                .text(event.data),
            ])
        }
        try Counters.write(.eventSequence, sequence, on: connection)
        if let transaction = connection.activeTransaction {
            // Inserted with the rest of the transaction's events just before its commit.
            transaction.appendEvents(rows)
            return sequence
        }
        try connection.insertMany(into: "hub_events", columns: columns, rows: rows)
        // Other instances on the same PostgreSQL wake when this commits (ClusterSignals).
        if connection.dialect == .postgres { try connection.executeDeferred(ClusterSignals.notification(.events, lastEvent: sequence)) }
        return sequence
    }

    /// Events after `sequence`, oldest first.
    public static func read(after sequence: Int64, limit: Int, on connection: any SQLConnection) throws -> [EventRecord] {
        try connection.query(select + " WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)").map(record)
    }
}

/// Named counters kept in `hub_counters`, read with a row lock inside write transactions.
enum Counters {
    struct Name: Sendable {
        let rawValue: String
        static let eventSequence = Name(rawValue: "event_sequence")
        static let ledgerTimestamp = Name(rawValue: "ledger_timestamp")
    }

    static func read(_ name: Name, on connection: any SQLConnection) throws -> Int64 {
        let transaction = connection.activeTransaction
        if let transaction {
            if transaction.cached(name.rawValue) == nil { try lockAll(on: connection) }
            guard let value = transaction.cached(name.rawValue) else {
                throw DatabaseError(.query, "counter '\(name.rawValue)' is missing: the kernel migrations have not run")
            }
            return value
        }
        guard
            let row = try connection.queryFirst("SELECT value FROM hub_counters WHERE name = \(name.rawValue)" + .forUpdate(connection.dialect))
        else {
            throw DatabaseError(.query, "counter '\(name.rawValue)' is missing: the kernel migrations have not run")
        }
        let value = try row.int("value")
        transaction?.remember(name.rawValue, value, dirty: false)
        return value
    }

    /// Locks every counter in one global order (by name) and keeps their values for the write
    /// transaction. Instances on one PostgreSQL database that locked them one by one, as each was
    /// first needed, deadlocked when one took the event sequence first and another the ledger
    /// timestamp (seen in the several-instances test). The kernel's writer calls this first in
    /// each group, so the whole hub locks counters before ledger accounts.
    static func lockAll(on connection: any SQLConnection) throws {
        guard let transaction = connection.activeTransaction else { return }
        for row in try connection.query("SELECT name, value FROM hub_counters ORDER BY name" + .forUpdate(connection.dialect)) {
            let name = try row.text("name")
            if transaction.cached(name) == nil { transaction.remember(name, try row.int("value"), dirty: false) }
        }
    }

    /// The value as this transaction sees it, without the row lock appenders take (so it works in
    /// read-only transactions too); 0 before the migrations made the row.
    static func peek(_ name: Name, on connection: any SQLConnection) throws -> Int64 {
        if let value = connection.activeTransaction?.cached(name.rawValue) { return value }
        return try connection.queryFirst("SELECT value FROM hub_counters WHERE name = \(name.rawValue)")?.int("value") ?? 0
    }

    /// Inside a write transaction the value is written back at its commit
    /// (``TransactionState``); outside one, at once.
    static func write(_ name: Name, _ value: Int64, on connection: any SQLConnection) throws {
        if let transaction = connection.activeTransaction {
            transaction.remember(name.rawValue, value, dirty: true)
        } else {
            try connection.execute("UPDATE hub_counters SET value = \(value) WHERE name = \(name.rawValue)")
        }
    }
}

/// Random version-4 UUID strings from a xoshiro256** generator seeded by the system's generator.
struct EventIDGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    private mutating func nextWord() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    mutating func next() -> String {
        var value = UInt128(nextWord()) << 64 | UInt128(nextWord())
        value = (value & ~(UInt128(0xF000) << 64)) | (UInt128(0x4000) << 64)
        value = (value & ~(UInt128(0xC000) << 48)) | (UInt128(0x8000) << 48)
        return TransferID(rawValue: value).description
    }
}
