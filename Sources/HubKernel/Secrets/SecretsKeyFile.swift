import CSodium
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The file that holds the vault's key-encryption key (KEK): exactly 32 raw bytes, mode 0600.
///
/// The format is the local chain's key file of before the vault, byte for byte, so that file can
/// become the KEK as it is. Every function here does blocking file I/O: call them at start-up,
/// from a command, or on a database worker's thread, never from a request on the cooperative pool.
public enum SecretsKeyFile {
    /// What is wrong with the key file at `path` (readable by group or others, not 32 bytes), or
    /// `nil` when it is sound or does not exist.
    public static func problem(at path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard mode & 0o077 == 0 else {
            return "the secrets key file \(path) is readable by others (mode \(String(mode, radix: 8))): run `chmod 600 \(path)`"
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
        guard size == KeyEncryptionKey.keyLength else {
            return "the secrets key file \(path) must hold exactly \(KeyEncryptionKey.keyLength) bytes (it holds \(size))"
        }
        return nil
    }

    /// Whether a file exists at `path`.
    public static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// The key in `path`, or `nil` when there is no file.
    /// - Throws: ``SecretsError`` `key_file` when the file is unsound or unreadable.
    public static func load(_ path: String) throws -> KeyEncryptionKey? {
        guard exists(path) else { return nil }
        if let problem = problem(at: path) { throw SecretsError(.keyFile, problem) }
        guard let data = FileManager.default.contents(atPath: path), let key = KeyEncryptionKey(keyBytes: Array(data)) else {
            throw SecretsError(.keyFile, "cannot read the secrets key file \(path)")
        }
        return key
    }

    /// Writes `key` to a new file at `path`, mode 0600, flushed to disk with its folder entry.
    ///
    /// The key is written whole to a private temporary file beside `path` first and then linked
    /// to its name with link(2), which fails if the name exists. So a process starting at the same
    /// moment sees either no file or the complete key, never an empty file that is still being
    /// written, and two processes cannot both create it and disagree.
    /// - Returns: `false` when a file already exists there (the caller reloads it).
    @discardableResult
    public static func create(_ path: String, key: KeyEncryptionKey) throws -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw SecretsError(.keyFile, "cannot create the folder of the secrets key file \(path): \(error)")
            }
        }
        if exists(path) { return false }
        let staging = "\(path).\(UUID().uuidString).new"
        let fd = Glibc.open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SecretsError(.keyFile, "cannot create a file beside \(path): \(String(cString: strerror(errno)))")
        }
        defer { unlink(staging) }
        let written = key.keyBytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == KeyEncryptionKey.keyLength, synced else {
            throw SecretsError(.keyFile, "cannot write the secrets key file \(path)")
        }
        guard link(staging, path) == 0 else {
            if errno == EEXIST { return false }
            throw SecretsError(.keyFile, "cannot create the secrets key file \(path): \(String(cString: strerror(errno)))")
        }
        syncFolder(of: path)
        return true
    }

    /// Replaces whatever is at `path` with `key`: a fresh file written completely and flushed
    /// (an earlier one, left by an interrupted rotation, is removed first, so its mode cannot carry over).
    public static func replace(_ path: String, key: KeyEncryptionKey) throws {
        if unlink(path) != 0, errno != ENOENT {
            throw SecretsError(.keyFile, "cannot remove \(path): \(String(cString: strerror(errno)))")
        }
        guard try create(path, key: key) else { throw SecretsError(.keyFile, "\(path) appeared while it was being replaced") }
    }

    /// Renames `from` over `to` atomically (rename(2)) and flushes the folder entry, so after a
    /// crash the name holds either the old file or the new one, whole.
    public static func rename(_ from: String, over to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw SecretsError(.keyFile, "cannot rename \(from) to \(to): \(String(cString: strerror(errno)))")
        }
        syncFolder(of: to)
    }

    /// Takes an exclusive lock on the key file for a rotation (flock(2) on the file itself, so no
    /// other file is left behind) and returns the descriptor that holds it; close it to release.
    /// Two rotations at once would both write the next key file, and one would rename the other's
    /// key into place: the second is refused here instead.
    /// - Throws: ``SecretsError`` `secrets_key_file` when another process holds the lock.
    public static func lockForRotation(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SecretsError(.keyFile, "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SecretsError(.keyFile, "another rotation of \(path) is running; run this one again when it has finished")
        }
        return fd
    }

    /// The id of `key` recorded beside each secret it seals: 8 bytes of a keyed BLAKE2b of a fixed
    /// label, in hex. It names the key without revealing anything about it.
    public static func keyID(_ key: KeyEncryptionKey) -> String {
        Sodium.requireReady()
        let label = Array("hubd secrets key id".utf8)
        var out = [UInt8](repeating: 0, count: 8)
        _ = crypto_generichash(&out, out.count, label, UInt64(label.count), key.keyBytes, key.keyBytes.count)
        return out.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    private static func syncFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = Glibc.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
