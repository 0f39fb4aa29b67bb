public import Foundation
import Synchronization

/// Starts child processes one at a time. Foundation's `Process.run()` on Linux is not safe to call
/// from two threads at once (a suite run crashed inside it, copying memory another spawn was
/// changing), and the suites run in parallel: every test that spawns a process goes through here.
public enum ChildProcess {
    private static let spawning = Mutex(())

    public static func start(_ process: Process) throws {
        try spawning.withLock { _ in try process.run() }
    }
}
