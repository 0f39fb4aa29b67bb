/// A value bound to, or read from, a SQL statement.
///
/// There is deliberately no floating-point case: nothing the hub stores is inexact.
/// `uint128` is stored as a 16-byte big-endian BLOB on SQLite (which has no 128-bit integer) and as
/// `NUMERIC(39,0)` on PostgreSQL, so 2^128−1 round-trips on both.
public enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case text(String)
    case bytes([UInt8])
    case uint128(UInt128)
}

extension SQLValue {
    /// `.null` for `nil`, otherwise the wrapped value.
    public static func optional(_ value: SQLValue?) -> SQLValue { value ?? .null }
}

extension UInt128 {
    /// The 16 big-endian bytes of this value (what SQLite stores).
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var v = self
        for index in stride(from: 15, through: 0, by: -1) {
            out[index] = UInt8(truncatingIfNeeded: v)
            v >>= 8
        }
        return out
    }

    /// Reads 16 big-endian bytes; `nil` for any other length.
    public init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var v: UInt128 = 0
        for byte in bytes { v = (v << 8) | UInt128(byte) }
        self = v
    }

    /// Parses a canonical decimal string: ASCII digits only, no sign, no leading zeros (except "0"),
    /// at most 2^128−1. Anything else (exponents, fractions, spaces, "+") is `nil`.
    public init?(canonicalDecimal text: some StringProtocol) {
        let utf8 = text.utf8
        guard let first = utf8.first, utf8.count <= 39 else { return nil }
        if first == UInt8(ascii: "0") && utf8.count > 1 { return nil }
        var v: UInt128 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt128(byte - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            v = s
        }
        self = v
    }
}
