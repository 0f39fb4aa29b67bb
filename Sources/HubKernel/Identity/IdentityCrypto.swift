import CSodium

/// The few primitives identity needs, on libsodium: random bytes, SHA-256, constant-time
/// comparison and unpadded base64url.
enum IdentityCrypto {
    /// `count` bytes from libsodium's generator.
    static func randomBytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }

    /// Equal length and equal bytes, in time that depends only on the length.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return sodium_memcmp(a, b, a.count) == 0
    }

    /// Unpadded base64url (RFC 4648 §5): safe in URLs, headers and file names.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Sodium.requireReady()
        let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
        let capacity = sodium_base64_encoded_len(bytes.count, variant)
        var out = [CChar](repeating: 0, count: capacity)
        _ = sodium_bin2base64(&out, capacity, bytes, bytes.count, variant)
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes unpadded base64url; `nil` for anything else.
    static func decodeBase64URL(_ text: String) -> [UInt8]? {
        Sodium.requireReady()
        let input = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: input.count * 3 / 4 + 1)
        var length = 0
        let rc = input.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { chars in
                sodium_base642bin(
                    &out,
                    out.count,
                    chars.baseAddress,
                    chars.count,
                    nil,
                    &length,
                    nil,
                    Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
                )
            }
        }
        guard rc == 0, length > 0 || input.isEmpty else { return nil }
        return Array(out.prefix(length))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// An opaque secret handed to a client once (`hubr_…` refresh tokens, `hubb_…` bootstrap tokens):
/// a prefix that says what it is, then 32 random bytes in base64url. Only its SHA-256 is stored,
/// so a leaked database does not leak usable tokens; 256 random bits need no slow hash.
struct OpaqueToken {
    let plaintext: String
    let hash: [UInt8]

    static func generate(prefix: String) -> OpaqueToken {
        let text = prefix + IdentityCrypto.base64URL(IdentityCrypto.randomBytes(32))
        return OpaqueToken(plaintext: text, hash: SHA256Digest.hash(text))
    }

    /// The stored hash of a presented token, or `nil` when it does not even have the right shape
    /// (so a malformed token never reaches the database).
    static func hash(presented: String, prefix: String) -> [UInt8]? {
        guard presented.hasPrefix(prefix), presented.utf8.count == prefix.utf8.count + 43 else { return nil }
        guard IdentityCrypto.decodeBase64URL(String(presented.dropFirst(prefix.count)))?.count == 32 else { return nil }
        return SHA256Digest.hash(presented)
    }
}

extension IdentityCrypto {
    /// A random (version 4) UUID in text form, for row ids that are not user ids.
    static func uuid() -> String { UserID.random().description }
}
