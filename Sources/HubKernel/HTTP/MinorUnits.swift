/// An amount of minor units as the API writes it: a JSON string of decimal digits (DESIGN §3.6).
///
/// Strings, because JSON numbers become doubles in most clients and lose money above 2^53. Only the
/// canonical form is accepted (no sign, exponent, fraction, whitespace or leading zero) so that one
/// amount has one spelling, which the idempotency check and signatures over bodies rely on.
public struct MinorUnits: Codable, Sendable, Hashable, CustomStringConvertible {
    public var value: UInt128

    public init(_ value: UInt128) { self.value = value }

    /// Parses the canonical form; `nil` for anything else or above 2^128−1.
    public init?(canonical text: String) {
        let digits = text.utf8
        guard let first = digits.first, digits.count <= 39 else { return nil }
        guard first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        var value: UInt128 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt128(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        self.value = value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Amounts are strings of integer minor units, e.g. \"5000\"."
            )
        }
        guard let parsed = MinorUnits(canonical: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Amounts are strings of decimal digits without sign, exponent, fraction or leading zeros, at most 2^128-1."
            )
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }

    public var description: String { String(value) }
}
