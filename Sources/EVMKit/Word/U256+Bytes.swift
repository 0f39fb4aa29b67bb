public import ChainKit

/// Conversions between words, big-endian bytes, hex, addresses and ChainKit's `UInt256`.
extension U256 {
    /// Reads up to 32 big-endian bytes (fewer are left-padded with zeros); extra leading bytes are
    /// dropped, so callers pass at most 32.
    @inlinable
    public init(bigEndian bytes: UnsafeRawBufferPointer) {
        var value = U256.zero
        let count = bytes.count
        var i = 0
        while i < count && i < 32 {
            let byte = UInt64(bytes[count - 1 - i])
            value[limb: i >> 3] |= byte << UInt64((i & 7) * 8)
            i += 1
        }
        self = value
    }

    /// Reads up to 32 big-endian bytes.
    @inlinable
    public init(bigEndian bytes: some Collection<UInt8>) {
        let array = Array(bytes.suffix(32))
        self = array.withUnsafeBytes { U256(bigEndian: $0) }
    }

    /// Writes the 32 big-endian bytes at `pointer`.
    @inlinable @inline(__always)
    public func storeBigEndian(to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: w3.bigEndian, toByteOffset: 0, as: UInt64.self)
        pointer.storeBytes(of: w2.bigEndian, toByteOffset: 8, as: UInt64.self)
        pointer.storeBytes(of: w1.bigEndian, toByteOffset: 16, as: UInt64.self)
        pointer.storeBytes(of: w0.bigEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// The 32 big-endian bytes.
    public var bigEndianBytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            storeBigEndian(to: UnsafeMutableRawPointer(buffer.baseAddress!))
            count = 32
        }
    }

    /// The big-endian bytes without leading zeros (empty for zero), as RLP writes integers.
    public var minimalBigEndianBytes: [UInt8] { Array(bigEndianBytes.drop { $0 == 0 }) }

    /// Parses `0x`-prefixed (or bare) hex of up to 64 digits; an empty string or `0x` is zero.
    public init(hex text: String) throws(EVMError) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.count <= 64 else { throw EVMError.invalidInput("'\(text)' has more than 64 hex digits") }
        var value = U256.zero
        for character in digits.utf8 {
            let nibble: UInt64
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(character - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt64(character - UInt8(ascii: "A") + 10)
            default: throw EVMError.invalidInput("'\(text)' is not hexadecimal")
            }
            value = value << 4 | U256(nibble)
        }
        self = value
    }

    /// Lowercase `0x` hex without leading zeros (`0x0` for zero).
    public var hexString: String {
        let text = Hex.encode(minimalBigEndianBytes, prefix: false)
        let trimmed = text.drop { $0 == "0" }
        return "0x" + (trimmed.isEmpty ? "0" : trimmed)
    }

    /// ChainKit's transaction-field integer as a word.
    public init(_ value: ChainKit.UInt256) {
        self.init(
            w0: UInt64(truncatingIfNeeded: value.low),
            w1: UInt64(truncatingIfNeeded: value.low >> 64),
            w2: UInt64(truncatingIfNeeded: value.high),
            w3: UInt64(truncatingIfNeeded: value.high >> 64)
        )
    }

    /// The word as ChainKit's transaction-field integer.
    public var chainKitValue: ChainKit.UInt256 {
        ChainKit.UInt256(high: UInt128(w3) << 64 | UInt128(w2), low: UInt128(w1) << 64 | UInt128(w0))
    }
}

extension U256: CustomStringConvertible {
    /// Decimal, as Python and the golden vectors print integers.
    public var description: String { chainKitValue.description }
}
