import CSecp256k1

/// secp256k1 through the system libsecp256k1: keys, deterministic (RFC 6979) recoverable
/// signatures, recovery and verification.
public enum Secp256k1 {
    /// A recoverable signature: `r ‖ s` (64 bytes) and the recovery id (0 or 1).
    public struct Signature: Sendable, Hashable {
        public var r: [UInt8]
        public var s: [UInt8]
        public var recoveryID: UInt8

        public init(r: [UInt8], s: [UInt8], recoveryID: UInt8) {
            self.r = r
            self.s = s
            self.recoveryID = recoveryID
        }

        /// Whether `s` is in the lower half of the group order (EIP-2; what libsecp256k1 produces).
        public var isLowS: Bool { (try? UInt256(bigEndian: s)).map { $0 <= Secp256k1.halfOrder } ?? false }
    }

    /// The group order n.
    public static let order = try! UInt256(bigEndian: Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"))
    /// ⌊n / 2⌋: the largest low-s value.
    public static let halfOrder = try! UInt256(bigEndian: Hex.decode("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"))

    /// The 64-byte uncompressed public key (x ‖ y, without the 0x04 tag) of a 32-byte private key.
    public static func publicKey(privateKey: [UInt8]) throws -> [UInt8] {
        try checkPrivateKey(privateKey)
        var publicKey = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_create(Context.shared.raw, &publicKey, privateKey) == 1 else {
            throw ChainKitError(.invalidKey, "the private key is not in 1…n-1")
        }
        return serialize(publicKey, compressed: false)
    }

    /// The 33-byte compressed form of a 64-byte public key.
    public static func compress(publicKey: [UInt8]) throws -> [UInt8] {
        serialize(try parse(publicKey: publicKey), compressed: true)
    }

    /// The 64-byte form of a 33-byte compressed (or 65-byte tagged) public key.
    public static func decompress(_ publicKey: [UInt8]) throws -> [UInt8] {
        serialize(try parse(publicKey: publicKey), compressed: false)
    }

    /// Signs a 32-byte hash. Deterministic (RFC 6979) and always low-s.
    public static func sign(hash: [UInt8], privateKey: [UInt8]) throws -> Signature {
        guard hash.count == 32 else { throw ChainKitError(.invalidSignature, "the hash to sign must be 32 bytes, got \(hash.count)") }
        try checkPrivateKey(privateKey)
        var signature = secp256k1_ecdsa_recoverable_signature()
        guard secp256k1_ecdsa_sign_recoverable(Context.shared.raw, &signature, hash, privateKey, nil, nil) == 1 else {
            throw ChainKitError(.invalidKey, "the private key is not in 1…n-1")
        }
        var compact = [UInt8](repeating: 0, count: 64)
        var recoveryID: Int32 = 0
        secp256k1_ecdsa_recoverable_signature_serialize_compact(Context.shared.raw, &compact, &recoveryID, &signature)
        return Signature(r: Array(compact[0..<32]), s: Array(compact[32..<64]), recoveryID: UInt8(recoveryID))
    }

    /// Recovers the 64-byte public key that made `signature` over `hash`.
    /// - Parameter requireLowS: refuse high-s signatures (EIP-2 transactions must).
    public static func recover(hash: [UInt8], signature: Signature, requireLowS: Bool = true) throws -> [UInt8] {
        guard hash.count == 32 else { throw ChainKitError(.invalidSignature, "the signed hash must be 32 bytes, got \(hash.count)") }
        guard signature.r.count == 32, signature.s.count == 32 else {
            throw ChainKitError(.invalidSignature, "r and s must be 32 bytes each")
        }
        guard signature.recoveryID <= 1 else {
            throw ChainKitError(.invalidSignature, "recovery id must be 0 or 1, got \(signature.recoveryID)")
        }
        if requireLowS && !signature.isLowS {
            throw ChainKitError(.invalidSignature, "s is in the upper half of the curve order (high-s signatures are not accepted)")
        }
        var parsed = secp256k1_ecdsa_recoverable_signature()
        guard
            secp256k1_ecdsa_recoverable_signature_parse_compact(
                Context.shared.raw,
                &parsed,
                signature.r + signature.s,
                Int32(signature.recoveryID)
            ) == 1
        else {
            throw ChainKitError(.invalidSignature, "r or s is not below the curve order")
        }
        var publicKey = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(Context.shared.raw, &publicKey, &parsed, hash) == 1 else {
            throw ChainKitError(.invalidSignature, "no public key recovers from this signature")
        }
        return serialize(publicKey, compressed: false)
    }

    /// Verifies a low-s signature over `hash` by a 64-byte public key.
    public static func verify(hash: [UInt8], r: [UInt8], s: [UInt8], publicKey: [UInt8]) throws -> Bool {
        guard hash.count == 32, r.count == 32, s.count == 32 else { return false }
        let key = try parse(publicKey: publicKey)
        var signature = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(Context.shared.raw, &signature, r + s) == 1 else { return false }
        var withKey = key
        // libsecp256k1 verifies only normalized (low-s) signatures, which is the rule we want.
        return secp256k1_ecdsa_verify(Context.shared.raw, &signature, hash, &withKey) == 1
    }

    private static func checkPrivateKey(_ key: [UInt8]) throws {
        guard key.count == 32 else { throw ChainKitError(.invalidKey, "a private key is 32 bytes, got \(key.count)") }
        guard secp256k1_ec_seckey_verify(Context.shared.raw, key) == 1 else {
            throw ChainKitError(.invalidKey, "the private key is zero or not below the curve order")
        }
    }

    private static func parse(publicKey: [UInt8]) throws -> secp256k1_pubkey {
        let serialized: [UInt8]
        switch publicKey.count {
        case 64: serialized = [0x04] + publicKey
        case 33, 65: serialized = publicKey
        default: throw ChainKitError(.invalidKey, "a public key is 64, 33 or 65 bytes, got \(publicKey.count)")
        }
        var key = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_parse(Context.shared.raw, &key, serialized, serialized.count) == 1 else {
            throw ChainKitError(.invalidKey, "the public key is not a point on secp256k1")
        }
        return key
    }

    private static func serialize(_ key: secp256k1_pubkey, compressed: Bool) -> [UInt8] {
        var copy = key
        var out = [UInt8](repeating: 0, count: compressed ? 33 : 65)
        var length = out.count
        secp256k1_ec_pubkey_serialize(
            Context.shared.raw,
            &out,
            &length,
            &copy,
            UInt32(compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED)
        )
        return compressed ? out : Array(out.dropFirst())
    }

    /// One process-wide context.
    final class Context: @unchecked Sendable {
        // @unchecked: libsecp256k1 documents a context as safe to share between threads for every
        // call except randomize and destroy, and this one is never randomized or destroyed.
        let raw: OpaquePointer
        static let shared = Context()
        private init() { raw = hub_secp256k1_context_create() }
    }
}
