public import Foundation
import Synchronization

/// Starts child processes one at a time, each with an environment captured once. Foundation's
/// `Process.run()` on Linux crashed twice in a suite run (a `memcpy` past a mapping inside it) while
/// other suites ran in parallel: spawns are serialised here, and a process given no environment
/// no longer makes Foundation copy the live `environ` while other threads may be using it.
public enum ChildProcess {
    private static let spawning = Mutex(())
    private static let environment = ProcessInfo.processInfo.environment

    public static func start(_ process: Process) throws {
        if process.environment == nil { process.environment = environment }
        try spawning.withLock { _ in try process.run() }
    }
}
