import Foundation
import HubKernel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps validator keys encrypted at rest (the kernel has no secrets vault yet, DESIGN §3.5).
///
/// Each chain's 32-byte secp256k1 key is sealed with the kernel's ``KeyEncryptionKey``
/// (XChaCha20-Poly1305) under a 32-byte key-encryption key (KEK); the chain id is the associated
/// data, so a sealed key copied onto another chain's row does not open. Stored form:
/// `nonce (24) ‖ ciphertext+tag (48)`.
///
/// The KEK lives in a file outside the database (`key_file` in the plugin's config, or
/// `HUB_LOCALCHAIN_KEY_FILE`): created at first use with 32 random bytes and mode 0600, refused
/// afterwards when it is readable by group or others, or not exactly 32 bytes. A database dump
/// alone therefore reveals no validator key. Losing the file loses the ability to seal blocks.
final class ValidatorKeyVault: Sendable {
    let path: String
    private let kek = Mutex<KeyEncryptionKey?>(nil)

    init(path: String) { self.path = path }

    /// A fresh random private key (valid for secp256k1: the system's CSPRNG, getrandom(2) on
    /// Linux, retried in the astronomically unlikely case it is zero or above the curve order).
    static func randomPrivateKey(isValid: ([UInt8]) -> Bool) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        while true {
            let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            if isValid(key) { return key }
        }
    }

    func seal(_ privateKey: [UInt8], chainID: UInt64) throws -> [UInt8] {
        try keyEncryptionKey().seal(privateKey, associatedData: Self.associatedData(chainID))
    }

    func open(_ sealed: [UInt8], chainID: UInt64) throws -> [UInt8] {
        guard sealed.count == KeyEncryptionKey.overhead + 32 else { throw LocalChainFailure("a sealed validator key has the wrong length") }
        guard let key = try keyEncryptionKey().open(sealed, associatedData: Self.associatedData(chainID)), key.count == 32 else {
            throw LocalChainFailure("the validator key of chain \(chainID) does not open with the key in \(path) (wrong key file?)")
        }
        return key
    }

    static func associatedData(_ chainID: UInt64) -> [UInt8] { Array("hubd-localchain-validator:\(chainID)".utf8) }

    /// Loads the KEK once (creating the file on first use).
    func keyEncryptionKey() throws -> KeyEncryptionKey {
        try kek.withLock { cached in
            if let cached { return cached }
            let key = try Self.loadOrCreate(path)
            cached = key
            return key
        }
    }

    /// What is wrong with an existing key file (open to group or others, or not 32 bytes), or
    /// `nil` when it is sound or does not exist yet. Checked at start-up (the plugin refuses to
    /// start), by readiness (a file opened up later turns the hub unready) and at every load.
    static func problem(at path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard mode & 0o077 == 0 else {
            return "the key file \(path) is readable by others (mode \(String(mode, radix: 8))): run `chmod 600 \(path)`"
        }
        guard (attributes[.size] as? NSNumber)?.intValue == 32 else {
            return "the key file \(path) must hold exactly 32 bytes (the local chain's key-encryption key)"
        }
        return nil
    }

    static func loadOrCreate(_ path: String) throws -> KeyEncryptionKey {
        if FileManager.default.fileExists(atPath: path) {
            if let problem = problem(at: path) { throw LocalChainFailure(problem) }
            guard let data = FileManager.default.contents(atPath: path), let key = KeyEncryptionKey(keyBytes: Array(data)) else {
                throw LocalChainFailure("\(path) must hold exactly 32 bytes (the local chain's key-encryption key)")
            }
            return key
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let key = KeyEncryptionKey.random()
        // O_EXCL: two processes starting together cannot both create (and so disagree on) the key.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return try loadOrCreate(path) }
            throw LocalChainFailure("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let written = key.keyBytes.withUnsafeBytes { write(fd, $0.baseAddress!, 32) }
        guard written == 32, fsync(fd) == 0 else { throw LocalChainFailure("cannot write \(path)") }
        return key
    }
}

/// A failure of the rail's own machinery (key file, stored data), as opposed to bad input.
struct LocalChainFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
