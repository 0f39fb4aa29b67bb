/// Which event types a reader wants: exact types (`ledger.transfer.posted`) and prefixes written
/// with a trailing `.*` (`ledger.transfer.*`). Empty means every type.
public struct EventFilter: Sendable, Hashable {
    public private(set) var exact: Set<String> = []
    public private(set) var prefixes: Set<String> = []

    public init() {}

    /// Entries checked when they were stored (a webhook endpoint's filter read back).
    init(trusted entries: [String]) {
        for entry in entries {
            if entry.hasSuffix(".*") { prefixes.insert(String(entry.dropLast())) } else { exact.insert(entry) }
        }
    }

    /// Parses filter entries; `nil` when one is not a dotted type or a prefix of one.
    public init?(_ entries: [String]) {
        for entry in entries {
            if entry.hasSuffix(".*") {
                let prefix = String(entry.dropLast(1))  // keeps the dot: "ledger.transfer."
                guard Self.isValidType(String(prefix.dropLast())) else { return nil }
                prefixes.insert(prefix)
            } else {
                guard Self.isValidType(entry) else { return nil }
                exact.insert(entry)
            }
        }
    }

    public var isEmpty: Bool { exact.isEmpty && prefixes.isEmpty }

    public func matches(_ type: String) -> Bool {
        isEmpty || exact.contains(type) || prefixes.contains { type.hasPrefix($0) }
    }

    /// Dotted words of letters, digits, `_` and `-`, e.g. `ble.session.paid` or `tip-jar.jar.opened`:
    /// the one rule for event types in filters, here and in webhook endpoints.
    static func isValidType(_ type: String) -> Bool {
        let words = type.split(separator: ".", omittingEmptySubsequences: false)
        return (1...255).contains(type.utf8.count) && words.allSatisfy { word in !word.isEmpty && word.utf8.allSatisfy(isTypeCharacter) }
    }

    static func isTypeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// A SQL condition on `type`, or `nil` when empty. Prefixes compare with `substr` because
    /// `LIKE` would read the `_` in type names as a wildcard.
    var sqlCondition: SQL? {
        guard !isEmpty else { return nil }
        var parts: [SQL] = []
        for type in exact.sorted() { parts.append("type = \(type)") }
        for prefix in prefixes.sorted() { parts.append("substr(type, 1, \(prefix.utf8.count)) = \(prefix)") }
        return "(" + SQL.joined(parts, separator: " OR ") + ")"
    }
}

extension EventLog {
    /// Events after `sequence` whose type matches `filter`, oldest first.
    public static func read(after sequence: Int64, limit: Int, filter: EventFilter, on connection: any SQLConnection) throws -> [EventRecord] {
        guard let condition = filter.sqlCondition else {
            return try read(after: sequence, limit: limit, on: connection)
        }
        return try connection.query(select + " WHERE sequence > \(sequence) AND \(condition) ORDER BY sequence LIMIT \(limit)").map(record)
    }

    /// The sequence of the newest event (0 when the log is empty).
    public static func lastSequence(on connection: any SQLConnection) throws -> Int64 {
        try Counters.peek(.eventSequence, on: connection)
    }

    static func record(_ row: SQLRow) throws -> EventRecord {
        EventRecord(
            sequence: try row.int("sequence"),
            id: try row.text("id"),
            type: try row.text("type"),
            source: try row.text("source"),
            subject: try row.optionalText("subject"),
            time: try row.text("time"),
            data: try row.text("data")
        )
    }

    /// The CloudEvents 1.0 JSON form of a stored event, with the hub's `sequence` extension.
    public static func envelope(_ event: EventRecord) -> String {
        var json = JSONWriter(capacity: 256 + event.data.utf8.count)
        json.beginObject()
        json.field("specversion", "1.0")
        json.field("id", event.id)
        json.field("source", event.source)
        json.field("type", event.type)
        json.field("subject", event.subject)
        json.field("time", event.time)
        json.field("datacontenttype", "application/json")
        json.key("data")
        json.raw(event.data)
        json.key("sequence")
        json.int(event.sequence)
        json.endObject()
        return json.text
    }
}
