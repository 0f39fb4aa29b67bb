import Foundation
import Testing

/// A few Ethereum GeneralStateTests (Cancun post-states) through the engine, checked by state root
/// and logs hash; the full BlockchainTests suite runs in `scripts/evm-blocktest.sh`.
@Suite struct StateTests {
    static let folders = ["stExample", "Shanghai/stEIP3855-push0", "Shanghai/stEIP3651-warmcoinbase", "Cancun/stEIP4844-blobtransactions"]

    @Test("state tests give the expected state root and logs", arguments: folders)
    func folder(_ folder: String) throws {
        let files = StateTestRunner.files(in: StateTestRunner.fixtures.appendingPathComponent(folder))
        #expect(!files.isEmpty)
        var passed = 0
        for file in files {
            let outcome = try StateTestRunner.run(file: file)
            passed += outcome.passed
            for failure in outcome.failures { Issue.record("\(file.lastPathComponent) \(failure)") }
        }
        #expect(passed > 0)
    }

    /// The whole shared GeneralStateTests folder, when HUB_EVM_STATETESTS names it (about 10,000 vectors).
    @Test(
        "every state test in HUB_EVM_STATETESTS",
        .enabled(if: ProcessInfo.processInfo.environment["HUB_EVM_STATETESTS"] != nil)
    )
    func sharedSuite() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HUB_EVM_STATETESTS"]!)
        // Calls nest 1024 deep, recursing on the native stack: run on a thread with room for that
        // (a test task's thread has far less).
        let box = ResultBox()
        let thread = Thread {
            var passed = 0
            var failures: [String] = []
            for file in StateTestRunner.files(in: root) {
                let name = file.path.replacingOccurrences(of: root.path, with: "")
                do {
                    let outcome = try StateTestRunner.run(file: file)
                    passed += outcome.passed
                    failures += outcome.failures.map { "\(name) \($0)" }
                } catch {
                    failures.append("\(name): \(error)")
                }
            }
            box.finish(passed: passed, failures: failures)
        }
        thread.stackSize = 1 << 30
        thread.start()
        box.done.wait()
        for failure in box.failures { Issue.record(Comment(rawValue: failure)) }
        print("state tests: \(box.passed) passed, \(box.failures.count) failed")
    }
}

/// The shared-suite thread's result.
private final class ResultBox: @unchecked Sendable {
    // Written once by the worker thread before `done` is signalled, read only after waiting on it.
    var passed = 0
    var failures: [String] = []
    let done = DispatchSemaphore(value: 0)

    func finish(passed: Int, failures: [String]) {
        self.passed = passed
        self.failures = failures
        done.signal()
    }
}
