import CSodium

/// Ed25519 (RFC 8032) through libsodium, and Substrate's hard derivation for it.
public enum Ed25519 {
    public struct KeyPair: Sendable, Hashable {
        public let seed: [UInt8]
        public let publicKey: [UInt8]

        /// libsodium's 64-byte secret key: seed ‖ public key.
        var secretKey: [UInt8] { seed + publicKey }
    }

    public static func keyPair(seed: [UInt8]) throws -> KeyPair {
        guard seed.count == 32 else { throw ChainKitError(.invalidKey, "an ed25519 seed is 32 bytes, got \(seed.count)") }
        precondition(libsodiumReady, "sodium_init() failed")
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return KeyPair(seed: seed, publicKey: publicKey)
    }

    /// A deterministic 64-byte signature.
    public static func sign(_ message: [UInt8], keyPair: KeyPair) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        var length: UInt64 = 0
        crypto_sign_detached(&signature, &length, message, UInt64(message.count), keyPair.secretKey)
        return signature
    }

    public static func verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        precondition(libsodiumReady, "sodium_init() failed")
        guard signature.count == 64, publicKey.count == 32 else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// Substrate's `//junction` for ed25519: the new seed is blake2b-256 of
    /// SCALE("Ed25519HDKD") ‖ seed ‖ chain code. There is no soft derivation.
    public static func deriveHard(_ keyPair: KeyPair, chainCode: [UInt8]) throws -> KeyPair {
        guard chainCode.count == 32 else { throw ChainKitError(.invalidKey, "a chain code is 32 bytes") }
        let label = "Ed25519HDKD".scaleEncoded
        return try self.keyPair(seed: blake2b256(label + keyPair.seed + chainCode))
    }

    /// Follows a whole derivation path. Throws for a soft junction: ed25519 has none.
    public static func derive(_ keyPair: KeyPair, path: [DerivationJunction]) throws -> KeyPair {
        try path.reduce(keyPair) { pair, junction in
            guard junction.isHard else {
                throw ChainKitError(.invalidKey, "ed25519 keys have no soft derivation: use // junctions only")
            }
            return try deriveHard(pair, chainCode: junction.chainCode)
        }
    }
}
