// SCALE's compact integers: the two low bits of the first byte choose the mode.
//   0b00: one byte, value < 2^6          0b01: two bytes LE, value < 2^14
//   0b10: four bytes LE, value < 2^30     0b11: (upper six bits + 4) bytes LE follow, value ≥ 2^30
// Exactly one encoding is valid for each value (the shortest); the decoder refuses the others, as the
// Substrate runtime does, because a longer form would give one value two byte strings (and two hashes).

extension SCALEEncoder {
    /// Appends `value` as a SCALE compact integer (any unsigned type up to `UInt128`).
    public mutating func encodeCompact<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        let value = UInt128(value)
        switch value {
        case ..<(1 << 6):
            encodeInteger(UInt8(value << 2))
        case ..<(1 << 14):
            encodeInteger(UInt16(value << 2) | 0b01)
        case ..<(1 << 30):
            encodeInteger(UInt32(value << 2) | 0b10)
        default:
            let byteCount = (UInt128.bitWidth - value.leadingZeroBitCount + 7) / 8
            encodeInteger(UInt8((byteCount - 4) << 2) | 0b11)
            for index in 0..<byteCount {
                encodeInteger(UInt8(truncatingIfNeeded: value >> (index * 8)))
            }
        }
    }
}

extension SCALEDecoder {
    /// Reads a SCALE compact integer into `type`.
    /// - Throws: `invalid_scale` for truncated bytes or a value written in a longer mode than it needs;
    ///   `out_of_range` for a well-formed value too large for `type`.
    public mutating func decodeCompact<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type = T.self) throws -> T {
        let at = offset
        let value = try decodeCompactValue()
        guard let result = T(exactly: value) else {
            throw ChainKitError(.outOfRange, "compact \(value) at offset \(at) does not fit \(T.self)")
        }
        return result
    }

    private mutating func decodeCompactValue() throws -> UInt128 {
        let at = offset
        let first = try decodeByte()
        let value: UInt128
        let smallest: UInt128
        switch first & 0b11 {
        case 0b00:
            return UInt128(first >> 2)
        case 0b01:
            value = littleEndian([first] + (try readRaw(count: 1, what: "a 2-byte compact"))) >> 2
            smallest = 1 << 6
        case 0b10:
            value = littleEndian([first] + (try readRaw(count: 3, what: "a 4-byte compact"))) >> 2
            smallest = 1 << 14
        default:
            let byteCount = Int(first >> 2) + 4
            guard byteCount <= 16 else {
                throw ChainKitError(.outOfRange, "compact at offset \(at) has \(byteCount) bytes, more than a UInt128")
            }
            value = littleEndian(try readRaw(count: byteCount, what: "a \(byteCount + 1)-byte compact"))
            // Four bytes must hold at least 2^30 (less fits the four-byte mode); longer forms need a non-zero top byte.
            smallest = byteCount == 4 ? 1 << 30 : 1 << ((byteCount - 1) * 8)
        }
        guard value >= smallest else {
            throw ChainKitError(.invalidSCALE, "non-canonical compact at offset \(at): \(value) has a shorter encoding")
        }
        return value
    }

    private func littleEndian(_ bytes: some BidirectionalCollection<UInt8>) -> UInt128 {
        bytes.reversed().reduce(UInt128.zero) { $0 << 8 | UInt128($1) }
    }
}

/// A SCALE compact integer (`Compact<T>` in Rust): a value that encodes in 1...17 bytes by magnitude.
///
/// Use it for struct fields declared `#[codec(compact)]` and for types such as `Compact<u128>` balances.
public struct SCALECompact<Value: FixedWidthInteger & UnsignedInteger & Sendable>: SCALECodable, Hashable, Sendable {
    /// The integer.
    public var value: Value

    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }

    public func encode(to encoder: inout SCALEEncoder) { encoder.encodeCompact(value) }

    public init(from decoder: inout SCALEDecoder) throws { value = try decoder.decodeCompact(Value.self) }
}
