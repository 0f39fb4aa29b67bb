public import ChainKit

/// A 20-byte account address, held in three integers so hashing and comparing are cheap in the
/// interpreter's maps (ChainKit's `EthereumAddress` holds an array).
@frozen
public struct Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0..<4, 4..<12 and 12..<20, big-endian.
    @usableFromInline var high: UInt32
    @usableFromInline var middle: UInt64
    @usableFromInline var low: UInt64

    /// The low 160 bits of a word (the rest is ignored, as the EVM does for address operands).
    @inlinable @inline(__always)
    public init(_ word: U256) {
        high = UInt32(truncatingIfNeeded: word.w2)
        middle = word.w1
        low = word.w0
    }

    /// The address as a word.
    @inlinable @inline(__always)
    public var word: U256 { U256(w0: low, w1: middle, w2: UInt64(high), w3: 0) }

    /// Exactly 20 bytes.
    public init(bytes: some Collection<UInt8>) throws(EVMError) {
        guard bytes.count == 20 else { throw EVMError.invalidInput("an address is 20 bytes, got \(bytes.count)") }
        self.init(U256(bigEndian: bytes))
    }

    /// `0x` and 40 hex digits.
    public init(hex text: String) throws(EVMError) {
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(text, length: 20)
        } catch {
            throw EVMError.invalidInput("'\(text)' is not an address (0x and 40 hex digits)")
        }
        try self.init(bytes: bytes)
    }

    public init(_ address: EthereumAddress) {
        self.init(U256(bigEndian: address.bytes))
    }

    /// A small address such as a precompile's `0x…01`.
    public init(low value: UInt64) {
        high = 0
        middle = 0
        low = value
    }

    public var bytes: [UInt8] { Array(word.bigEndianBytes.suffix(20)) }

    public var description: String { Hex.encode(bytes) }

    public static func < (lhs: Address, rhs: Address) -> Bool { lhs.word < rhs.word }

    public static let zero = Address(low: 0)
}
