// EVMKit throughput in gas per second, release build. Run through `make bench-evm`
// (scripts/bench-evm.sh), which makes the workloads (tools/evm/bench_workloads.py: Vyper contracts
// compiled by the pinned vyper), runs them here and in revm (pyrevm), and prints the ratios.
//
// Usage: EVMBench WORKLOADS.json PREPARED.json [SECONDS]
// Each workload is a standalone case whose transactions set the stage (deployments, funding) and
// one measured transaction. The stage is run once; the measured transaction then runs again and
// again, each time on a copy of the staged state, for about SECONDS (default 2). PREPARED.json gets
// the staged state and the measured transaction as one-transaction cases, so revm runs exactly the
// same thing. Prints one JSON object per workload: {"workload", "gas", "runs", "seconds", "gas_per_second"}.
import EVMKit
import Foundation

struct Workload: Codable {
    var name: String
    var stage: StandaloneCase
    var measured: StandaloneCase.Tx
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: EVMBench WORKLOADS.json PREPARED.json [SECONDS]\n".utf8))
    exit(2)
}
let budget = arguments.count > 3 ? Double(arguments[3]) ?? 2 : 2
let workloads = try JSONDecoder().decode([Workload].self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
var prepared: [StandaloneCase] = []

for workload in workloads {
    var state = try workload.stage.preState()
    let executor = TransactionExecutor(block: try workload.stage.blockEnvironment())
    var blockGasUsed: UInt64 = 0
    for transaction in try workload.stage.transactions() {
        let receipt = try executor.execute(transaction, on: &state, blockGasUsed: blockGasUsed)
        guard receipt.status else {
            fatalError("\(workload.name): a staging transaction failed: \(receipt.haltReason.map { "\($0)" } ?? "reverted")")
        }
        blockGasUsed += receipt.gasUsed
    }
    var single = workload.stage
    single.name = workload.name
    single.pre = StandaloneCase.accounts(of: state)
    single.txs = [workload.measured]
    prepared.append(single)
    let measured = try single.transactions()[0]

    // One warm-up run, which must succeed, then timed runs on fresh copies of the staged state.
    var copy = state
    let first = try executor.execute(measured, on: &copy)
    guard first.status else { fatalError("\(workload.name): the measured transaction failed: \(first.haltReason.map { "\($0)" } ?? "reverted")") }
    var runs = 0
    var elapsed = 0.0
    repeat {
        var fresh = state
        let start = ContinuousClock.now
        let receipt = try executor.execute(measured, on: &fresh)
        elapsed += seconds(ContinuousClock.now - start)
        precondition(receipt.gasUsed == first.gasUsed)
        runs += 1
    } while elapsed < budget || runs < 3
    let gasPerSecond = Double(first.gasUsed) * Double(runs) / elapsed
    let timing = #""runs": \#(runs), "seconds": \#(String(format: "%.4f", elapsed)), "gas_per_second": \#(String(format: "%.0f", gasPerSecond))"#
    print(#"{"workload": "\#(workload.name)", "gas": \#(first.gasUsed), \#(timing)}"#)
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
try encoder.encode(prepared).write(to: URL(fileURLWithPath: arguments[2]))
