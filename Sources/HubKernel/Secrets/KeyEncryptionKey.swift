import CSodium

/// A 32-byte key-encryption key that seals small secrets at rest (a rail's signing keys) with
/// XChaCha20-Poly1305, libsodium's IETF AEAD.
///
/// A sealed secret is `nonce (24) ‖ ciphertext ‖ tag (16)`; the nonce is random, which a 24-byte
/// nonce makes safe for any number of seals under one key. The associated data binds a sealed
/// secret to where it belongs (a chain id, say), so one copied elsewhere does not open.
///
/// This lives in the kernel, not in ChainKit (DESIGN §2): sealing a secret at rest is not a chain
/// format but the start of the secrets vault DESIGN §3.5 gives every rail through the kernel, and
/// the key it seals under is kept in a file, I/O that ChainKit, pure and I/O-free, never does.
/// Rails reach libsodium only through here: a plugin imports no C shim.
///
/// ```swift
/// let kek = KeyEncryptionKey.random()
/// let sealed = kek.seal(privateKey, associatedData: Array("chain:7".utf8))
/// let opened = kek.open(sealed, associatedData: Array("chain:7".utf8))  // privateKey
/// ```
public struct KeyEncryptionKey: Sendable {
    /// The length of a key, in bytes.
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// The nonce each sealed secret starts with, in bytes.
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The authentication tag each sealed secret ends with, in bytes.
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// How much longer a sealed secret is than the secret.
    public static var overhead: Int { nonceLength + tagLength }

    /// The key itself, for its owner to store (in a file only its owner may read).
    public let keyBytes: [UInt8]

    /// A key from stored bytes; `nil` unless there are exactly ``keyLength`` of them.
    public init?(keyBytes: [UInt8]) {
        guard keyBytes.count == Self.keyLength else { return nil }
        self.keyBytes = keyBytes
    }

    /// A new key from libsodium's generator.
    public static func random() -> KeyEncryptionKey {
        KeyEncryptionKey(keyBytes: Sodium.randomBytes(keyLength))!
    }

    /// `secret` sealed under this key: `nonce ‖ ciphertext ‖ tag`, ``overhead`` bytes longer.
    public func seal(_ secret: [UInt8], associatedData: [UInt8] = []) -> [UInt8] {
        let nonce = Sodium.randomBytes(Self.nonceLength)
        var sealed = [UInt8](repeating: 0, count: secret.count + Self.tagLength)
        var sealedLength: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &sealed,
            &sealedLength,
            secret,
            UInt64(secret.count),
            associatedData,
            UInt64(associatedData.count),
            nil,
            nonce,
            keyBytes
        )
        // Encryption fails only on a message longer than libsodium's limit (about 256 GiB).
        precondition(status == 0, "XChaCha20-Poly1305 refused to seal \(secret.count) bytes")
        return nonce + sealed.prefix(Int(sealedLength))
    }

    /// The secret inside `sealed`, or `nil` when it was not sealed under this key with this
    /// associated data, or was changed since (the tag does not verify), or is too short.
    public func open(_ sealed: [UInt8], associatedData: [UInt8] = []) -> [UInt8]? {
        guard sealed.count >= Self.overhead else { return nil }
        Sodium.requireReady()
        let nonce = Array(sealed.prefix(Self.nonceLength))
        let cipher = Array(sealed.dropFirst(Self.nonceLength))
        var secret = [UInt8](repeating: 0, count: cipher.count - Self.tagLength)
        var secretLength: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &secret,
            &secretLength,
            nil,
            cipher,
            UInt64(cipher.count),
            associatedData,
            UInt64(associatedData.count),
            nonce,
            keyBytes
        )
        guard status == 0 else { return nil }
        return Array(secret.prefix(Int(secretLength)))
    }
}
