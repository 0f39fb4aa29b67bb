/// Why ChainKit refused an input. Decoders and crypto never trap on bad input: they throw this,
/// with a stable `code` and a message that says what was wrong and where.
public struct ChainKitError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ raw: String) { rawValue = raw }
        public var description: String { rawValue }

        /// Not hexadecimal, odd length, or the wrong number of bytes.
        public static let invalidHex = Code("invalid_hex")
        /// RLP that is truncated, non-canonical, or has trailing bytes.
        public static let invalidRLP = Code("invalid_rlp")
        /// A transaction that does not decode or whose fields are out of range.
        public static let invalidTransaction = Code("invalid_transaction")
        /// A private key outside 1..n-1, or a public key not on the curve.
        public static let invalidKey = Code("invalid_key")
        /// A signature that does not parse, is not low-s where required, or does not recover.
        public static let invalidSignature = Code("invalid_signature")
        /// An address with a wrong length or a failed checksum.
        public static let invalidAddress = Code("invalid_address")
        /// SCALE bytes that are truncated or non-canonical.
        public static let invalidSCALE = Code("invalid_scale")
        /// A BIP39 phrase with an unknown word, a wrong word count or a bad checksum.
        public static let invalidMnemonic = Code("invalid_mnemonic")
        /// A value that does not fit the type asked for.
        public static let outOfRange = Code("out_of_range")
        /// A zstd frame that is malformed, of unknown size, or larger than the limit.
        public static let invalidZstd = Code("invalid_zstd")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// Errors compare by code, so tests can match the kind of failure without the wording.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
