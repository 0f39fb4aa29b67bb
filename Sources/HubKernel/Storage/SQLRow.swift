/// One row of a query result.
///
/// Backends hand over cells in the most natural form they have (SQLite: integer, text, blob;
/// PostgreSQL: integer for integer columns, bytes for `bytea`, text for everything else), and the
/// typed accessors convert, so callers read the same way on both.
public struct SQLRow: Sendable {
    public enum Cell: Sendable, Hashable {
        case null
        case int(Int64)
        case text(String)
        case bytes([UInt8])
    }

    public let cells: [Cell]
    /// The result's column names, shared by all its rows.
    public let columns: SQLColumns

    public init(cells: [Cell], columns: SQLColumns = .unnamed) {
        self.cells = cells
        self.columns = columns
    }

    public var count: Int { cells.count }

    public func isNull(_ index: Int) -> Bool { cells[index] == .null }

    public func int(_ index: Int) throws -> Int64 {
        switch cells[index] {
        case .int(let v): return v
        case .text(let t):
            if let v = Int64(t) { return v }
        default: break
        }
        throw DatabaseError(.decode, "column \(index): expected an integer, found \(cells[index])")
    }

    public func optionalInt(_ index: Int) throws -> Int64? { isNull(index) ? nil : try int(index) }

    public func text(_ index: Int) throws -> String {
        switch cells[index] {
        case .text(let t): return t
        case .int(let v): return String(v)
        default: throw DatabaseError(.decode, "column \(index): expected text, found \(cells[index])")
        }
    }

    public func optionalText(_ index: Int) throws -> String? { isNull(index) ? nil : try text(index) }

    public func bytes(_ index: Int) throws -> [UInt8] {
        if case .bytes(let b) = cells[index] { return b }
        throw DatabaseError(.decode, "column \(index): expected bytes, found \(cells[index])")
    }

    public func optionalBytes(_ index: Int) throws -> [UInt8]? { isNull(index) ? nil : try bytes(index) }

    public func uint128(_ index: Int) throws -> UInt128 {
        switch cells[index] {
        case .bytes(let b):
            if let v = UInt128(bigEndianBytes: b) { return v }
        case .text(let t):
            if let v = UInt128(canonicalDecimal: t) { return v }
        case .int(let v):
            if v >= 0 { return UInt128(v) }
        case .null: break
        }
        throw DatabaseError(.decode, "column \(index): expected an unsigned 128-bit integer, found \(cells[index])")
    }
}

/// The column names of one result, with their positions (shared by every row of the result).
public final class SQLColumns: Sendable {
    public let names: [String]
    private let positions: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        // A name that appears twice (a join) keeps its first position; select it under an alias.
        for (index, name) in names.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    /// Rows built by hand (tests) name no columns.
    public static let unnamed = SQLColumns([])

    func index(of name: String) throws -> Int {
        guard let index = positions[name] else {
            throw DatabaseError(.decode, "the result has no column '\(name)' (it has \(names.joined(separator: ", ")))")
        }
        return index
    }
}

extension SQLRow {
    /// The value of the column `name`, as `T`.
    public func decode<T: SQLDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let index = try columns.index(of: name)
        do {
            return try T(row: self, index)
        } catch let error as DatabaseError {
            throw DatabaseError(.decode, "column '\(name)': \(error.message)")
        }
    }

    /// The row's columns in order, as a typed tuple: `let (id, amount) = try row.decode(Int64.self, UInt128.self)`.
    public func decode<each T: SQLDecodable>(_ types: repeat (each T).Type) throws -> (repeat each T) {
        var index = 0
        func next<U: SQLDecodable>(_ type: U.Type) throws -> U {
            defer { index += 1 }
            guard index < cells.count else {
                throw DatabaseError(.decode, "the row has \(cells.count) columns, fewer than the types asked for")
            }
            return try U(row: self, index)
        }
        return (repeat try next(each types))
    }

    public func int(_ name: String) throws -> Int64 { try decode(name) }
    public func text(_ name: String) throws -> String { try decode(name) }
    public func bytes(_ name: String) throws -> [UInt8] { try decode(name) }
    public func uint128(_ name: String) throws -> UInt128 { try decode(name) }
    public func optionalInt(_ name: String) throws -> Int64? { try decode(name) }
    public func optionalText(_ name: String) throws -> String? { try decode(name) }
    public func optionalBytes(_ name: String) throws -> [UInt8]? { try decode(name) }
}

/// A Swift value read from a result cell.
public protocol SQLDecodable {
    init(row: SQLRow, _ index: Int) throws
}

extension Int64: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws { self = try row.int(index) }
}

extension Int: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws { self = Int(try row.int(index)) }
}

extension UInt64: SQLDecodable {
    /// The bit pattern stored by ``SQLBindable``'s `UInt64` binding.
    public init(row: SQLRow, _ index: Int) throws { self = UInt64(bitPattern: try row.int(index)) }
}

extension Bool: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws {
        switch row.cells[index] {
        case .int(let value): self = value != 0
        case .text(let text) where text == "t" || text == "true": self = true
        case .text(let text) where text == "f" || text == "false": self = false
        default: throw DatabaseError(.decode, "column \(index): expected a boolean, found \(row.cells[index])")
        }
    }
}

extension String: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws { self = try row.text(index) }
}

extension [UInt8]: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws { self = try row.bytes(index) }
}

extension UInt128: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws { self = try row.uint128(index) }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public init(row: SQLRow, _ index: Int) throws {
        self = row.isNull(index) ? nil : try Wrapped(row: row, index)
    }
}
