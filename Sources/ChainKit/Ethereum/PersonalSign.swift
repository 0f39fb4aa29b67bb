/// EIP-191 version 0x45 (`personal_sign`): what wallets sign for "sign in with Ethereum" and
/// other plain messages.
public enum PersonalSign {
    /// keccak-256 of `"\u{19}Ethereum Signed Message:\n" + decimal length + message`.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n\(message.count)".utf8) + message)
    }

    /// The 65-byte signature `r ‖ s ‖ v` with `v` = 27 or 28, as wallets return it.
    public static func sign(_ message: [UInt8], privateKey: [UInt8]) throws -> [UInt8] {
        let signature = try Secp256k1.sign(hash: hash(message), privateKey: privateKey)
        return signature.r + signature.s + [27 + signature.recoveryID]
    }

    /// The address that signed `message`. Accepts `v` as 27/28 or 0/1; refuses high-s.
    public static func recover(_ message: [UInt8], signature: [UInt8]) throws -> EthereumAddress {
        try recover(hash: hash(message), signature: signature)
    }

    /// The address behind a 65-byte `r ‖ s ‖ v` signature over a 32-byte hash.
    public static func recover(hash: [UInt8], signature: [UInt8]) throws -> EthereumAddress {
        guard signature.count == 65 else { throw ChainKitError(.invalidSignature, "a signature is 65 bytes (r ‖ s ‖ v), got \(signature.count)") }
        let v = signature[64]
        guard v == 27 || v == 28 || v == 0 || v == 1 else { throw ChainKitError(.invalidSignature, "v must be 27, 28, 0 or 1, got \(v)") }
        let parsed = Secp256k1.Signature(r: Array(signature[0..<32]), s: Array(signature[32..<64]), recoveryID: v >= 27 ? v - 27 : v)
        return try EthereumAddress(publicKey: Secp256k1.recover(hash: hash, signature: parsed))
    }
}
