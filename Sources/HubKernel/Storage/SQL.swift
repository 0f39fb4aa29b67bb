/// A SQL statement with its values bound where they are written:
///
/// ```swift
/// try connection.query("SELECT id, balance FROM ledger_accounts WHERE owner_id = \(owner) AND asset = \(asset)")
/// ```
///
/// Every interpolated value becomes a bound parameter (`$1`, `$2`, … numbered when the statement
/// is rendered), never text in the statement, so a value cannot change what the statement does and
/// nobody counts placeholders by hand. Fragments compose (`\(sql)` splices another statement's
/// text and values); identifiers and keywords that are not values go in through
/// ``StringInterpolation/appendInterpolation(raw:)``, which only takes static text.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
    }

    private(set) var parts: [Part]

    public init(stringLiteral value: String) { parts = [.text(value)] }

    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    /// A statement from text that takes no values (DDL, `BEGIN`): prefer a literal.
    public init(static text: StaticString) { parts = [.text(text.description)] }

    init(parts: [Part]) { self.parts = parts }

    /// The statement's text with `$n` placeholders, and its values in order.
    public var rendered: (text: String, binds: [SQLValue]) {
        var text = ""
        var binds: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let fragment): text += fragment
            case .value(let value):
                binds.append(value)
                text += "$\(binds.count)"
            }
        }
        return (text, binds)
    }

    public var description: String { rendered.text }

    public static func + (lhs: SQL, rhs: SQL) -> SQL { SQL(parts: lhs.parts + rhs.parts) }

    public static func += (lhs: inout SQL, rhs: SQL) { lhs.parts += rhs.parts }

    /// `parts` joined by `separator`, e.g. conditions by `" AND "`.
    public static func joined(_ parts: [SQL], separator: StaticString) -> SQL {
        var out = SQL(parts: [])
        for (index, part) in parts.enumerated() {
            if index > 0 { out.parts.append(.text(separator.description)) }
            out.parts += part.parts
        }
        return out
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { parts.append(.text(literal)) }
        }

        /// A value, bound as a parameter.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.value(value.sqlValue))
        }

        /// A value or `NULL`.
        public mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            parts.append(.value(value?.sqlValue ?? .null))
        }

        /// Another statement's text and values, spliced in.
        public mutating func appendInterpolation(_ fragment: SQL) {
            parts += fragment.parts
        }

        /// Text that is part of the statement itself (a table name, a keyword): static text only,
        /// so no value read at run time can ever reach the statement's text.
        public mutating func appendInterpolation(raw text: StaticString) {
            parts.append(.text(text.description))
        }

        /// A name the kernel built from checked parts (a plugin's table prefix): not a value.
        public mutating func appendInterpolation(identifier name: SQLIdentifier) {
            parts.append(.text(name.rawValue))
        }

        /// `$1, $2, …` for each value: the inside of an `IN (…)`.
        public mutating func appendInterpolation(list values: [some SQLBindable]) {
            for (index, value) in values.enumerated() {
                if index > 0 { parts.append(.text(", ")) }
                parts.append(.value(value.sqlValue))
            }
        }
    }
}

/// A table or column name checked to be a plain SQL identifier (letters, digits, `_`), so it can
/// go into a statement's text.
public struct SQLIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ name: String) {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first),
            name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else { return nil }
        rawValue = name
    }

    public var description: String { rawValue }
}

/// A Swift value that binds to a statement parameter.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .int(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .int(Int64(self)) }
}

extension UInt64: SQLBindable {
    /// Bound by bit pattern: the hub stores nanosecond timestamps and chain numbers this way, and
    /// reads them back with `UInt64(bitPattern:)`.
    public var sqlValue: SQLValue { .int(Int64(bitPattern: self)) }
}

extension UInt32: SQLBindable {
    public var sqlValue: SQLValue { .int(Int64(self)) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .int(self ? 1 : 0) }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Substring: SQLBindable {
    public var sqlValue: SQLValue { .text(String(self)) }
}

extension [UInt8]: SQLBindable {
    public var sqlValue: SQLValue { .bytes(self) }
}

extension UInt128: SQLBindable {
    public var sqlValue: SQLValue { .uint128(self) }
}
