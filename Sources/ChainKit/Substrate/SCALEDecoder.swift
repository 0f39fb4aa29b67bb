/// A cursor that reads SCALE values from bytes, front to back.
///
/// Every read checks that enough bytes remain and throws `invalid_scale` (naming the offset) rather than
/// trapping, so the decoder is safe on untrusted input. Call ``finish()`` after the last value to refuse
/// trailing bytes, which would otherwise let two different byte strings decode to the same value.
///
/// ```swift
/// var decoder = SCALEDecoder(bytes)
/// let id = try decoder.decode(UInt32.self)
/// let memo = try decoder.decodeBytes()
/// try decoder.finish()
/// ```
public struct SCALEDecoder: Sendable {
    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset: Int = 0

    /// A decoder positioned at the first of `bytes`.
    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// How many bytes are left to read.
    public var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// Reads one value of type `type`.
    public mutating func decode<T: SCALEDecodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: &self)
    }

    /// Reads a fixed-width little-endian integer of `bitWidth / 8` bytes.
    /// - Throws: `invalid_scale` when fewer bytes remain.
    public mutating func decodeInteger<T: FixedWidthInteger>(_ type: T.Type = T.self) throws -> T {
        let raw = try readRaw(count: T.bitWidth / 8, what: "\(T.self)")
        var value = T.zero
        for (index, byte) in raw.enumerated() {
            value |= T(truncatingIfNeeded: byte) << (index * 8)
        }
        return value
    }

    /// Reads one byte.
    public mutating func decodeByte() throws -> UInt8 {
        try readRaw(count: 1, what: "a byte").first!
    }

    /// Reads a bool, which must be exactly `00` or `01`.
    /// - Throws: `invalid_scale` for any other byte.
    public mutating func decodeBool() throws -> Bool {
        let at = offset
        switch try decodeByte() {
        case 0: return false
        case 1: return true
        case let other: throw ChainKitError(.invalidSCALE, "bool byte \(other) at offset \(at) is not 0 or 1")
        }
    }

    /// Reads `count` bytes as they are (a fixed-size array, hash or account id).
    /// - Throws: `invalid_scale` when fewer bytes remain.
    public mutating func decodeRaw(count: Int) throws -> [UInt8] {
        Array(try readRaw(count: count, what: "\(count) bytes"))
    }

    /// Reads a byte vector (`Vec<u8>`): a compact length, then that many bytes.
    /// - Throws: `invalid_scale` for a bad length or when the bytes are cut short.
    public mutating func decodeBytes() throws -> [UInt8] {
        let count = try decodeLength()
        return try decodeRaw(count: count)
    }

    /// Reads a vector (`Vec<T>`): a compact element count, then each element read by `decodeElement`.
    /// - Throws: `invalid_scale` for a bad count, or whatever `decodeElement` throws.
    public mutating func decodeVector<T>(_ decodeElement: (inout SCALEDecoder) throws -> T) throws -> [T] {
        let count = try decodeLength()
        var elements: [T] = []
        elements.reserveCapacity(count)
        for _ in 0..<count {
            elements.append(try decodeElement(&self))
        }
        return elements
    }

    /// Reads an `Option<T>`: `00` is nil, `01` is followed by the value read by `decodeValue`.
    /// - Throws: `invalid_scale` for any other tag byte.
    public mutating func decodeOption<T>(_ decodeValue: (inout SCALEDecoder) throws -> T) throws -> T? {
        let at = offset
        switch try decodeByte() {
        case 0: return nil
        case 1: return try decodeValue(&self)
        case let other: throw ChainKitError(.invalidSCALE, "Option tag \(other) at offset \(at) is not 0 or 1")
        }
    }

    /// Reads the compact length of a vector and checks it against the bytes left.
    ///
    /// Every element ChainKit decodes takes at least one byte, so a count above ``remaining`` cannot be
    /// satisfied. Refusing it up front means a hostile length (up to 2^64) never reserves memory or loops.
    /// (A vector of zero-sized elements, which SCALE allows but no Substrate call uses, would be refused too.)
    mutating func decodeLength() throws -> Int {
        let at = offset
        let count = try decodeCompact(UInt64.self)
        guard count <= UInt64(remaining) else {
            throw ChainKitError(.invalidSCALE, "length \(count) at offset \(at) exceeds the \(remaining) bytes left")
        }
        return Int(count)
    }

    /// Succeeds only when every byte has been read.
    /// - Throws: `invalid_scale` naming the number of trailing bytes.
    public func finish() throws {
        guard isAtEnd else {
            throw ChainKitError(.invalidSCALE, "\(remaining) trailing bytes after offset \(offset)")
        }
    }

    /// Takes the next `count` bytes.
    mutating func readRaw(count: Int, what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw ChainKitError(
                .invalidSCALE,
                "truncated: \(what()) at offset \(offset) needs \(count) bytes, \(remaining) left"
            )
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}
