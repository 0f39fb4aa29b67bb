public import Foundation
import Synchronization

/// Starts child processes one at a time, each with an environment captured once. Foundation's
/// `Process.run()` on Linux crashed twice in a suite run (a `memcpy` past a mapping inside it) while
/// other suites ran in parallel: spawns are serialised here, and a process given no environment
/// no longer makes Foundation copy the live `environ` while other threads may be using it.
public enum ChildProcess {
    static let spawning = Mutex(())
    private static let environment = ProcessInfo.processInfo.environment

    public static func start(_ process: Process) throws {
        if process.environment == nil { process.environment = environment }
        try spawning.withLock { _ in try process.run() }
    }
}

#if canImport(Glibc)
    import Glibc

    /// A child started with `posix_spawn` directly, its standard output a pipe: for the crash tests,
    /// which start writers many times while every other suite runs, and where Foundation's
    /// `Process.run()` crashed inside its own `memcpy` even one spawn at a time.
    public struct SpawnedChild: Sendable {
        public let pid: pid_t
        /// The read end of the child's standard output.
        public let output: FileHandle

        /// - Parameter environment: the child's whole environment; `nil` passes this process's.
        public static func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> SpawnedChild {
            let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            // Built before the spawn lock, from a dictionary captured once: no reading of the live `environ`.
            let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
            defer { for pointer in envp ?? [] { free(pointer) } }
            var fds: [Int32] = [0, 0]
            var pid: pid_t = 0
            // Under the spawn lock, and close-on-exec: no other child started by the tests can
            // inherit the pipe and hold it open.
            let rc: Int32 = try ChildProcess.spawning.withLock { _ in
                guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
                if let envp { return posix_spawn(&pid, path, &actions, nil, argv, envp) }
                return posix_spawn(&pid, path, &actions, nil, argv, environ)
            }
            close(fds[1])
            guard rc == 0 else {
                close(fds[0])
                throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
            }
            return SpawnedChild(pid: pid, output: FileHandle(fileDescriptor: fds[0], closeOnDealloc: true))
        }

        /// Waits for the child to end; `true` when a signal ended it.
        public func waitUntilExit() -> Bool {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7f
            return signal != 0 && signal != 0x7f
        }
    }
#endif
