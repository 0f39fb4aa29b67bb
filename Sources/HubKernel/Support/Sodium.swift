import CSodium

/// libsodium, initialised once for the process. Every kernel use of libsodium (hashing, random
/// bytes, argon2id, AEAD) checks ``ready`` first through ``requireReady()``: libsodium must not be
/// used before `sodium_init()` has succeeded, and one place keeps that rule instead of a copy per
/// feature.
enum Sodium {
    /// Whether `sodium_init()` succeeded. A static `let` is initialised lazily, once and atomically
    /// (`swift_once`), so every thread that reads it sees libsodium initialised, without a lock of
    /// our own. `sodium_init()` returns 1 when another module (ChainKit, say) initialised libsodium
    /// first, which is fine too.
    static let ready: Bool = sodium_init() >= 0

    /// Traps when libsodium could not initialise (no usable source of randomness): nothing the
    /// kernel would do with it is safe then, and there is no caller that could recover.
    static func requireReady() {
        precondition(ready, "sodium_init() failed")
    }

    /// `count` bytes from libsodium's generator (the kernel's CSPRNG for secrets and salts).
    static func randomBytes(_ count: Int) -> [UInt8] {
        requireReady()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return bytes
    }
}
