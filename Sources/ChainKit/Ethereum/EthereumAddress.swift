/// A 20-byte Ethereum (and Klaytn/Kaia) account address.
public struct EthereumAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == 20 else { throw ChainKitError(.invalidAddress, "an address is 20 bytes, got \(bytes.count)") }
        self.bytes = bytes
    }

    /// The address of a 64-byte public key: the last 20 bytes of its keccak-256.
    public init(publicKey: [UInt8]) throws {
        guard publicKey.count == 64 else { throw ChainKitError(.invalidKey, "expected a 64-byte public key, got \(publicKey.count)") }
        bytes = Array(Keccak256.hash(publicKey).suffix(20))
    }

    /// Parses `0x` + 40 hex digits. All-lowercase or all-uppercase is accepted as is; mixed case
    /// must carry a valid EIP-55 checksum.
    public init(_ text: String) throws {
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(text, length: 20)
        } catch {
            throw ChainKitError(.invalidAddress, "'\(text)' is not 0x followed by 40 hex digits")
        }
        self.bytes = bytes
        // The digits are ASCII hex (they decoded), so their case is a byte range: asking
        // `Character` for Unicode case properties cost more than the rest of the parse, and the
        // hub parses an address for every row it reads.
        let digits = text.utf8.dropFirst(text.hasPrefix("0x") || text.hasPrefix("0X") ? 2 : 0)
        let hasLower = digits.contains { (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        let hasUpper = digits.contains { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }
        if hasLower && hasUpper && !digits.elementsEqual(checksummed.utf8.dropFirst(2)) {
            throw ChainKitError(.invalidAddress, "'\(text)' has mixed case but a wrong EIP-55 checksum")
        }
    }

    /// Lowercase `0x…`.
    public var description: String { Hex.encode(bytes) }

    /// The EIP-55 mixed-case form: a hex letter is uppercase where the matching nibble of
    /// keccak-256(lowercase hex) is 8 or more.
    public var checksummed: String {
        let lower = Array(Hex.encode(bytes, prefix: false).utf8)
        let hash = Keccak256.hash(lower)
        var out = Array("0x".utf8)
        for (index, character) in lower.enumerated() {
            let nibble = index % 2 == 0 ? hash[index / 2] >> 4 : hash[index / 2] & 0xF
            out.append(character >= UInt8(ascii: "a") && nibble >= 8 ? character - 32 : character)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
