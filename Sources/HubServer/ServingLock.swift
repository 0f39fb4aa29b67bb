import Foundation
public import HubKernel

/// Which processes serve a SQLite hub: `hubd serve` holds a shared `flock` on `<database>.serving`
/// for as long as it runs, and `hubd restore` takes it exclusively, so a restore never replaces a
/// database under a running hub, and no hub starts on one being restored. Several `hubd serve` on
/// one file may hold it together. The kernel releases a lock when its holder exits, however it
/// exits: a crashed hub leaves nothing to clean up.
public final class ServingLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The lock file of a SQLite database at `path`.
    public static func lockPath(for path: String) -> String { path + ".serving" }

    /// Held while serving; `nil` for PostgreSQL (restores there go through `pg_restore`).
    public static func serving(_ url: DatabaseURL) throws -> ServingLock? {
        guard case .sqlite(let path) = url else { return nil }
        guard let lock = try take(lockPath(for: path), operation: LOCK_SH) else {
            throw ConfigurationError(source: path, message: "a restore of this database is running (`hubd restore`); start hubd after it")
        }
        return lock
    }

    /// Held while restoring into the database at `path`; `nil` when a hub serves it.
    public static func restoring(_ path: String) throws -> ServingLock? {
        try take(lockPath(for: path), operation: LOCK_EX)
    }

    private static func take(_ path: String, operation: Int32) throws -> ServingLock? {
        // The database's folder, made here when the hub is new (as opening the database would).
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError(source: path, message: "cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, operation | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(descriptor)
            if busy { return nil }
            throw ConfigurationError(source: path, message: "cannot lock: \(String(cString: strerror(errno)))")
        }
        return ServingLock(descriptor: descriptor)
    }
}
