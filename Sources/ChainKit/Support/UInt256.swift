/// An unsigned 256-bit integer, for the Ethereum fields that need it (values, fees, ABI words).
/// Stored as two 128-bit halves; arithmetic traps never: the reporting forms say when it overflows.
public struct UInt256: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var high: UInt128
    public var low: UInt128

    public init(high: UInt128 = 0, low: UInt128) {
        self.high = high
        self.low = low
    }

    public init(_ value: some BinaryInteger) {
        precondition(value >= 0, "UInt256 cannot hold a negative value")
        self.init(low: UInt128(value))
    }

    public static let zero = UInt256(low: 0)
    public static let max = UInt256(high: .max, low: .max)

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    public var isZero: Bool { high == 0 && low == 0 }

    // MARK: Bytes

    /// Reads up to 32 big-endian bytes.
    public init(bigEndian bytes: some Collection<UInt8>) throws {
        guard bytes.count <= 32 else {
            throw ChainKitError(.outOfRange, "\(bytes.count) bytes do not fit in 256 bits")
        }
        var value = UInt256.zero
        for byte in bytes {
            value = value.shiftedLeft8()
            value.low |= UInt128(byte)
        }
        self = value
    }

    /// The 32 big-endian bytes.
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for index in 0..<16 {
            out[15 - index] = UInt8(truncatingIfNeeded: high >> UInt128(8 * index))
            out[31 - index] = UInt8(truncatingIfNeeded: low >> UInt128(8 * index))
        }
        return out
    }

    /// The big-endian bytes without leading zeros (empty for zero), as RLP encodes integers.
    public var minimalBigEndianBytes: [UInt8] { Array(bigEndianBytes.drop { $0 == 0 }) }

    private func shiftedLeft8() -> UInt256 {
        UInt256(high: high << 8 | low >> 120, low: low << 8)
    }

    // MARK: Arithmetic

    public func addingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (low, carry) = self.low.addingReportingOverflow(other.low)
        let (high1, overflow1) = self.high.addingReportingOverflow(other.high)
        let (high2, overflow2) = high1.addingReportingOverflow(carry ? 1 : 0)
        return (UInt256(high: high2, low: low), overflow1 || overflow2)
    }

    public func subtractingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (low, borrow) = self.low.subtractingReportingOverflow(other.low)
        let (high1, overflow1) = self.high.subtractingReportingOverflow(other.high)
        let (high2, overflow2) = high1.subtractingReportingOverflow(borrow ? 1 : 0)
        return (UInt256(high: high2, low: low), overflow1 || overflow2)
    }

    /// Multiplies by a small factor, reporting overflow.
    public func multipliedReportingOverflow(by factor: UInt64) -> (partialValue: UInt256, overflow: Bool) {
        let f = UInt128(factor)
        let lowProduct = low.multipliedFullWidth(by: f)
        let highProduct = high.multipliedFullWidth(by: f)
        let (high, carry) = highProduct.low.addingReportingOverflow(lowProduct.high)
        return (UInt256(high: high, low: lowProduct.low), highProduct.high != 0 || carry)
    }

    /// Divides by a small divisor, returning quotient and remainder.
    public func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: UInt256, remainder: UInt64) {
        precondition(divisor != 0, "division by zero")
        // Long division over four 64-bit digits, most significant first.
        let words = [
            UInt64(truncatingIfNeeded: high >> 64), UInt64(truncatingIfNeeded: high), UInt64(truncatingIfNeeded: low >> 64),
            UInt64(truncatingIfNeeded: low),
        ]
        var quotient = [UInt64](repeating: 0, count: 4)
        var remainder: UInt64 = 0
        for (index, word) in words.enumerated() {
            let (q, r) = divisor.dividingFullWidth((high: remainder, low: word))
            quotient[index] = q
            remainder = r
        }
        return (
            UInt256(high: UInt128(quotient[0]) << 64 | UInt128(quotient[1]), low: UInt128(quotient[2]) << 64 | UInt128(quotient[3])),
            remainder
        )
    }

    // MARK: Decimal

    /// Parses a decimal string of digits only (no sign, no exponent, no leading zeros but "0").
    public init(decimal text: String) throws {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ChainKitError(.outOfRange, "'\(text)' is not a decimal integer")
        }
        guard text == "0" || !text.hasPrefix("0") else {
            throw ChainKitError(.outOfRange, "'\(text)' has leading zeros")
        }
        var value = UInt256.zero
        for digit in text.utf8 {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt256(low: UInt128(digit - UInt8(ascii: "0"))))
            guard !overflow1, !overflow2 else { throw ChainKitError(.outOfRange, "'\(text)' exceeds 2^256-1") }
            value = sum
        }
        self = value
    }

    public var description: String {
        if high == 0 { return String(low) }
        var digits: [String] = []
        var value = self
        // Nineteen decimal digits at a time: the largest power of ten below 2^64.
        while !value.isZero {
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: 10_000_000_000_000_000_000)
            digits.append(String(remainder))
            value = quotient
        }
        var text = digits.removeLast()
        for chunk in digits.reversed() { text += String(repeating: "0", count: 19 - chunk.count) + chunk }
        return text
    }
}
