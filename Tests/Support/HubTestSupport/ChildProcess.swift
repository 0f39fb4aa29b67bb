#if canImport(Glibc)
    public import Foundation
    import Glibc
    import Synchronization

    /// A child process started with `posix_spawn` directly, its standard output a pipe.
    ///
    /// Every test that runs a program goes through here, never through Foundation's `Process`:
    /// `Process.run()` on Linux crashed inside its own `memcpy` while other suites ran in parallel,
    /// even with spawns serialised, and a crash there takes the whole test runner down. Spawns are
    /// still serialised, and every pipe is close-on-exec, so no other child inherits one and holds
    /// it open.
    public final class SpawnedChild: Sendable {
        /// Where the child's standard error goes.
        public enum StandardError: Sendable {
            /// The test runner's own standard error.
            case inherited
            /// The same pipe as standard output.
            case merged
            /// `/dev/null`.
            case discarded
        }

        /// How a child ended.
        public enum Termination: Sendable, Equatable {
            case exited(Int32)
            case signalled(Int32)
        }

        /// The environment of the test runner, read once: reading `environ` while another thread
        /// may change it is what Foundation's spawn did on every call.
        public static let inheritedEnvironment = ProcessInfo.processInfo.environment

        private static let spawning = Mutex(())

        public let pid: pid_t
        /// The read end of the child's standard output.
        public let output: FileHandle
        /// The write end of the child's standard input, when one was asked for; close it to send
        /// end of file.
        public let input: FileHandle?
        private let termination = Mutex<Termination?>(nil)

        private init(pid: pid_t, output: FileHandle, input: FileHandle?) {
            self.pid = pid
            self.output = output
            self.input = input
        }

        /// Starts `path` with `arguments`.
        ///
        /// - Parameters:
        ///   - environment: the whole environment of the child; the test runner's by default.
        ///   - standardInput: whether to give the child a pipe for standard input (else it reads
        ///     `/dev/null`).
        ///   - directory: the working directory of the child; the runner's by default.
        public static func start(
            _ path: String,
            _ arguments: [String],
            environment: [String: String] = inheritedEnvironment,
            standardInput: Bool = false,
            standardError: StandardError = .inherited,
            directory: String? = nil
        ) throws -> SpawnedChild {
            let argv = CStrings([path] + arguments)
            let envp = CStrings(environment.map { "\($0.key)=\($0.value)" })
            defer {
                argv.free()
                envp.free()
            }
            var outputPipe: [Int32] = [-1, -1]
            var inputPipe: [Int32] = [-1, -1]
            var pid: pid_t = 0
            let rc: Int32 = try spawning.withLock { _ in
                try makePipe(&outputPipe)
                if standardInput {
                    do { try makePipe(&inputPipe) } catch {
                        closeAll(outputPipe)
                        throw error
                    }
                }
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
                if standardInput {
                    posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
                } else {
                    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                }
                switch standardError {
                case .inherited: break
                case .merged: posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
                case .discarded: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                }
                if let directory {
                    let added = addChangeDirectory.map { $0(&actions, directory) } ?? ENOSYS
                    guard added == 0 else { throw POSIXError(POSIXErrorCode(rawValue: added) ?? .EIO) }
                }
                return posix_spawn(&pid, path, &actions, nil, argv.pointers, envp.pointers)
            }
            close(outputPipe[1])
            if standardInput { close(inputPipe[0]) }
            guard rc == 0 else {
                close(outputPipe[0])
                if standardInput { close(inputPipe[1]) }
                throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
            }
            return SpawnedChild(
                pid: pid,
                output: FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true),
                input: standardInput ? FileHandle(fileDescriptor: inputPipe[1], closeOnDealloc: true) : nil
            )
        }

        /// Runs a program to its end, with `input` (if any) written to its standard input and its
        /// standard error merged into the output it returns.
        public static func run(
            _ path: String,
            _ arguments: [String],
            environment: [String: String] = inheritedEnvironment,
            input: String? = nil
        ) throws -> (termination: Termination, output: String) {
            let child = try start(path, arguments, environment: environment, standardInput: true, standardError: .merged)
            if let input { child.input?.write(Data(input.utf8)) }
            try child.input?.close()
            let data = child.output.readAllRetryingInterrupts()
            return (child.wait(), String(decoding: data, as: UTF8.self))
        }

        /// Waits for the child to end.
        @discardableResult
        public func wait() -> Termination {
            if let ended = termination.withLock({ $0 }) { return ended }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return record(status)
        }

        /// Waits for the child to end; `true` when a signal ended it.
        public func waitUntilExit() -> Bool {
            if case .signalled = wait() { return true }
            return false
        }

        /// How the child ended, or `nil` while it runs. Never blocks.
        public var ended: Termination? {
            if let ended = termination.withLock({ $0 }) { return ended }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            return record(status)
        }

        /// Sends `signal` (SIGTERM by default) unless the child has already been reaped.
        public func terminate(_ signal: Int32 = SIGTERM) {
            guard ended == nil else { return }
            kill(pid, signal)
        }

        private func record(_ status: Int32) -> Termination {
            let signal = status & 0x7f
            let ended: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            termination.withLock { $0 = ended }
            return ended
        }

        /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which the Glibc module
        /// does not export: looked up once by name.
        private static let addChangeDirectory: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np") else {
                return nil
            }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self
            )
        }()

        private static func makePipe(_ fds: inout [Int32]) throws {
            guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }

        private static func closeAll(_ fds: [Int32]) { for fd in fds where fd >= 0 { close(fd) } }
    }

    /// A null-terminated array of C strings, as `posix_spawn` takes its arguments and environment.
    private struct CStrings {
        let pointers: [UnsafeMutablePointer<CChar>?]

        init(_ strings: [String]) { pointers = strings.map { strdup($0) } + [nil] }

        func free() { for pointer in pointers { Glibc.free(pointer) } }
    }
#endif
