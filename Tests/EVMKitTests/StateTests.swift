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
        .enabled(if: ProcessInfo.processInfo.environment["HUB_EVM_STATETESTS"] != nil))
    func sharedSuite() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HUB_EVM_STATETESTS"]!)
        var passed = 0, failed = 0
        for file in StateTestRunner.files(in: root) {
            let outcome = try StateTestRunner.run(file: file)
            passed += outcome.passed
            failed += outcome.failures.count
            for failure in outcome.failures { Issue.record("\(file.path.replacingOccurrences(of: root.path, with: "")) \(failure)") }
        }
        print("state tests: \(passed) passed, \(failed) failed")
    }
}
