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

    public init(cells: [Cell]) { self.cells = cells }

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
