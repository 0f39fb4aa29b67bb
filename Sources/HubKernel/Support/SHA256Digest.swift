import CSodium

/// SHA-256 (libsodium), the one digest the kernel uses for stored token hashes, idempotency request
/// hashes, cache keys and derived ids.
enum SHA256Digest {
    static func hash(_ input: some Collection<UInt8>) -> [UInt8] {
        Sodium.requireReady()
        let message = Array(input)
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_bytes()))
        _ = crypto_hash_sha256(&digest, message, UInt64(message.count))
        return digest
    }

    static func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }
}
