import ArgumentParser
import EVMKit
import Foundation

/// Runs standalone transaction cases from a JSON file and prints their outcomes as JSON: the Swift
/// half of the differential test against revm (`scripts/evm-difftest.sh`).
struct EVMRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a JSON batch of standalone transaction cases and print the outcomes as JSON.",
        discussion: """
            FILE holds a JSON array of cases: {"name", "pre": {address: {balance, nonce, code,
            storage}}, "block": {number, timestamp, coinbase, gasLimit, baseFee, prevRandao,
            chainId}, "txs": [{sender, to, nonce, value, data, gasLimit, gasPrice}]}. Prints a JSON array
            of outcomes in the same order: {"name", "results": [{"status" (success|revert|halt|invalid),
            "output", "gasUsed", "logs", "contractAddress", "error"}], "accounts"}; empty accounts
            without storage are left out of "accounts". "-" reads standard input.
            """
    )

    @Argument(help: "The JSON file of cases, or - for standard input.")
    var file: String

    func run() throws {
        let data =
            file == "-"
            ? FileHandle.standardInput.readDataToEndOfFile()
            : try Data(contentsOf: URL(fileURLWithPath: file))
        let cases = try JSONDecoder().decode([StandaloneCase].self, from: data)
        // Generated programs call one another; a large stack keeps deep nesting off the guard page,
        // as in `evm blocktest`.
        let outcomes = try Self.onLargeStack {
            var outcomes: [StandaloneOutcome] = []
            for testCase in cases { outcomes.append(try testCase.run()) }
            return outcomes
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        FileHandle.standardOutput.write(try encoder.encode(outcomes))
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    static func onLargeStack<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        let box = ResultBox<T>()
        let thread = Thread {
            box.set(Result { try work() })
        }
        thread.stackSize = 1 << 30
        thread.start()
        return try box.wait().get()
    }
}

/// A result handed from a worker thread to the thread that waits for it.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Written once by the worker before `done` is signalled; read only after waiting on it.
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: Result<T, any Error>) {
        result = value
        done.signal()
    }

    func wait() -> Result<T, any Error> {
        done.wait()
        return result!
    }
}
