/// SS58 account addresses, as sp-core's `to_ss58check_with_version` writes them.
///
/// An address is `base58(prefix ‖ account ‖ checksum)`: the network prefix in one byte (0...63) or two
/// bytes (64...16383), the 32-byte account id (or a 33-byte compressed ECDSA key), and the first two bytes
/// of `blake2b-512("SS58PRE" ‖ prefix ‖ account)`.
///
/// ```swift
/// let address = try SS58.encode(alicePublicKey, prefix: 42)   // "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"
/// let (prefix, account) = try SS58.decode(address)             // (42, alicePublicKey)
/// ```
public enum SS58 {
    /// The largest network prefix SS58 can carry (14 bits).
    public static let maximumPrefix: UInt16 = 16383
    /// The account lengths accepted: sr25519/ed25519 account ids and compressed ECDSA public keys.
    public static let accountLengths: Set<Int> = [32, 33]

    private static let checksumLength = 2
    private static let checksumContext = Array("SS58PRE".utf8)
    /// The longest payload (two prefix bytes, 33 account bytes, checksum) is 37 bytes, at most 51 base58 characters.
    /// Longer text is refused before the quadratic base58 arithmetic runs on it.
    private static let maximumAddressLength = 64

    /// The SS58 address of `account` on the network `prefix`.
    /// - Parameters:
    ///   - account: a 32-byte account id (sr25519/ed25519 public key) or a 33-byte compressed ECDSA key.
    ///   - prefix: the network's SS58 prefix, 0...16383 (Polkadot 0, Kusama 2, generic Substrate 42, peaq 1221).
    /// - Throws: `out_of_range` for a prefix above 16383, `invalid_address` for an account of another length.
    public static func encode(_ account: some Collection<UInt8>, prefix: UInt16) throws -> String {
        guard accountLengths.contains(account.count) else {
            throw ChainKitError(.invalidAddress, "an SS58 account must be 32 or 33 bytes, not \(account.count)")
        }
        var payload = try prefixBytes(prefix)
        payload.append(contentsOf: account)
        payload.append(contentsOf: checksum(payload))
        return Base58.encode(payload)
    }

    /// The network prefix and account bytes of an SS58 address.
    /// - Throws: `invalid_address` for text that is not base58, a payload of the wrong length, an unknown or
    ///   non-canonical prefix form, or a checksum that does not match.
    public static func decode(_ address: String) throws -> (prefix: UInt16, account: [UInt8]) {
        guard !address.isEmpty else { throw ChainKitError(.invalidAddress, "the SS58 address is empty") }
        guard address.utf8.count <= maximumAddressLength else {
            throw ChainKitError(.invalidAddress, "\(address.utf8.count) characters is too long for an SS58 address")
        }
        let data = try Base58.decode(address)
        let (prefix, prefixLength) = try readPrefix(data)
        let accountLength = data.count - prefixLength - checksumLength
        guard accountLengths.contains(accountLength) else {
            throw ChainKitError(
                .invalidAddress,
                "SS58 payload holds \(max(accountLength, 0)) account bytes; expected 32 or 33"
            )
        }
        let body = data[..<(data.count - checksumLength)]
        guard checksum(body).elementsEqual(data[body.endIndex...]) else {
            throw ChainKitError(.invalidAddress, "SS58 checksum does not match")
        }
        return (prefix, Array(data[prefixLength..<body.endIndex]))
    }

    /// The account bytes of an SS58 address that must belong to the network `expectedPrefix`.
    /// - Throws: as ``decode(_:)``, and `invalid_address` when the address is for another network.
    public static func decode(_ address: String, expectedPrefix: UInt16) throws -> [UInt8] {
        let (prefix, account) = try decode(address)
        guard prefix == expectedPrefix else {
            throw ChainKitError(.invalidAddress, "the address is for SS58 prefix \(prefix), expected \(expectedPrefix)")
        }
        return account
    }

    /// The one- or two-byte form of a network prefix, exactly as sp-core writes it.
    /// - Throws: `out_of_range` for a prefix above 16383.
    public static func prefixBytes(_ prefix: UInt16) throws -> [UInt8] {
        switch prefix {
        case 0..<64:
            return [UInt8(prefix)]
        case 64...maximumPrefix:
            // The 14 bits are split oddly (sp-core's layout): the first byte is 0b01 then bits 2...7 of the
            // prefix; the second byte is bits 0...1 of the prefix on top and bits 8...13 below.
            let first = UInt8(truncatingIfNeeded: (prefix & 0b1111_1100) >> 2) | 0b0100_0000
            let second = UInt8(truncatingIfNeeded: (prefix >> 8) | ((prefix & 0b11) << 6))
            return [first, second]
        default:
            throw ChainKitError(.outOfRange, "SS58 prefix \(prefix) is above \(maximumPrefix)")
        }
    }

    /// Reads the prefix at the start of a decoded payload: (prefix, its length in bytes).
    private static func readPrefix(_ data: [UInt8]) throws -> (UInt16, Int) {
        guard data.count >= 2 else {
            throw ChainKitError(.invalidAddress, "SS58 payload of \(data.count) bytes is too short")
        }
        switch data[0] {
        case 0..<64:
            return (UInt16(data[0]), 1)
        case 64..<128:
            let lower = (data[0] << 2) | (data[1] >> 6)
            let upper = data[1] & 0b0011_1111
            let prefix = UInt16(lower) | UInt16(upper) << 8
            // sp-core would accept a small prefix in the two-byte form; refusing it keeps one address per
            // (prefix, account), so addresses can be compared as text.
            guard prefix >= 64 else {
                throw ChainKitError(.invalidAddress, "SS58 prefix \(prefix) written in the two-byte form")
            }
            return (prefix, 2)
        default:
            throw ChainKitError(.invalidAddress, "SS58 prefix byte \(data[0]) is reserved (must be below 128)")
        }
    }

    private static func checksum(_ payload: some Collection<UInt8>) -> ArraySlice<UInt8> {
        blake2b512(checksumContext + payload).prefix(checksumLength)
    }
}
