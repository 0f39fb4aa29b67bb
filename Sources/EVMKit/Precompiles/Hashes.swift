import ChainKit

/// SHA-256 (0x02) and RIPEMD-160 (0x03) come from ChainKit.
enum ChainKitHashes {
    static func sha256(_ input: [UInt8]) -> [UInt8] { ChainKit.sha256(input) }
    static func ripemd160(_ input: [UInt8]) -> [UInt8] { RIPEMD160.hash(input) }
}

/// 0x01: the address that signed a hash, from (hash, v, r, s); empty output when none recovers.
enum Ecrecover {
    static func run(_ input: [UInt8]) -> [UInt8] {
        let data = paddedSlice(input, 0, 128)
        let hash = Array(data[0..<32])
        let v = U256(bigEndian: data[32..<64])
        let r = Array(data[64..<96]), s = Array(data[96..<128])
        guard v == U256(27) || v == U256(28) else { return [] }
        let rWord = U256(bigEndian: r), sWord = U256(bigEndian: s)
        let order = U256(Secp256k1.order)
        // Unlike transactions, the precompile accepts a high s (no EIP-2 rule here).
        guard !rWord.isZero, !sWord.isZero, rWord < order, sWord < order else { return [] }
        let signature = Secp256k1.Signature(r: r, s: s, recoveryID: UInt8(v.w0 - 27))
        guard let publicKey = try? Secp256k1.recover(hash: hash, signature: signature, requireLowS: false),
            let address = try? EthereumAddress(publicKey: publicKey)
        else { return [] }
        return [UInt8](repeating: 0, count: 12) + address.bytes
    }
}

/// 0x09 (EIP-152): BLAKE2b's F with rounds ‖ h ‖ m ‖ t ‖ f as its 213-byte input.
enum Blake2f {
    static func run(_ input: [UInt8]) -> [UInt8]? {
        guard input.count == 213, input[212] <= 1 else { return nil }
        func word(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(input[offset + i]) << UInt64(8 * i) }
            return value
        }
        let rounds = UInt32(input[0]) << 24 | UInt32(input[1]) << 16 | UInt32(input[2]) << 8 | UInt32(input[3])
        var h = (0..<8).map { word(4 + 8 * $0) }
        let m = (0..<16).map { word(68 + 8 * $0) }
        Blake2bCompression.compress(rounds: rounds, h: &h, m: m, t: (word(196), word(204)), isFinal: input[212] == 1)
        var out: [UInt8] = []
        for value in h {
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
        }
        return out
    }
}
