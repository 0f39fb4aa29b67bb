import Foundation
import HubKernel

/// One measured row of the table.
struct BenchResult: Codable {
    var backend: String
    var mode: String
    var transfers: Int
    var seconds: Double
    var transfers_per_sec: Double
    var p50_ms: Double?
    var p99_ms: Double?
    /// Concurrent workloads: calls the writer carried per database transaction (group commit).
    var calls_per_commit: Double? = nil
    /// Over repeated runs: how many, and the slowest and fastest rate (the row is the median run).
    var runs: Int? = nil
    var min_per_sec: Double? = nil
    var max_per_sec: Double? = nil
}

/// The median run of each (backend, mode), with the spread of all runs.
func medians(_ results: [BenchResult]) -> [BenchResult] {
    var order: [String] = []
    var groups: [String: [BenchResult]] = [:]
    for result in results {
        let key = result.backend + "/" + result.mode
        if groups[key] == nil { order.append(key) }
        groups[key, default: []].append(result)
    }
    return order.map { key in
        let runs = groups[key]!.sorted { $0.transfers_per_sec < $1.transfers_per_sec }
        var median = runs[runs.count / 2]
        median.runs = runs.count
        median.min_per_sec = runs.first!.transfers_per_sec
        median.max_per_sec = runs.last!.transfers_per_sec
        return median
    }
}

struct BenchOptions {
    var postgresURL: String?
    var output = "bench/results/ledger.json"
    /// Multiplies every workload size; `--quick` sets 0.1 for a smoke run.
    var scale = 1.0
    /// Each workload runs this many times on a fresh database; the table shows the median.
    var runs = 3
    var backends: [String] = ["sqlite", "postgres"]
    /// Runs only the workloads whose mode starts with one of these (for profiling one of them, or
    /// for `make bench-http`'s direct baselines).
    var only: [String]?
    /// `--scale-steps`: run `make bench-scale`'s growth instead (ScaleBench).
    var growth: ScaleBench.Options?

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--postgres-url": options.postgresURL = iterator.next()
            case "--output": options.output = iterator.next() ?? options.output
            case "--quick":
                options.scale = 0.1
                options.runs = 1
            case "--runs": options.runs = max(1, Int(iterator.next() ?? "") ?? 3)
            case "--scale": options.scale = Double(iterator.next() ?? "") ?? 1
            case "--only": options.only = (iterator.next() ?? "").split(separator: ",").map(String.init)
            case "--backend": options.backends = (iterator.next() ?? "").split(separator: ",").map(String.init)
            case "--scale-steps":
                let steps = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
                guard !steps.isEmpty, steps == steps.sorted(), steps.first! > 1 else {
                    throw BenchError("--scale-steps takes increasing account counts, e.g. 10000,100000,1000000")
                }
                options.growth = ScaleBench.Options(databaseURL: "", backend: "", steps: steps)
            case "--database-url":
                let url = iterator.next() ?? ""
                options.growth?.databaseURL = url
                options.growth?.backend = url.hasPrefix("postgres") ? "postgres" : "sqlite"
            case "--transfers-per-account": options.growth?.transfersPerAccount = Int(iterator.next() ?? "") ?? 10
            case "--measured": options.growth?.measured = Int(iterator.next() ?? "") ?? 20_000
            case "--hubd": options.growth?.hubd = iterator.next() ?? ""
            case "--bulk-growth": options.growth?.bulkGrowth = true
            case "--prewarm": options.growth?.prewarm = true
            case "--max-transfers": options.growth?.maxTransfers = Int(iterator.next() ?? "")
            case "--help", "-h":
                print(
                    """
                    usage: LedgerBench [--postgres-url URL] [--output FILE] [--quick | --scale X] [--runs N] [--backend sqlite,postgres] [--only MODE[,MODE…]]
                    Measures ledger transfers per second (batched, one caller, 64 concurrent callers) against a
                    hand-written SQL loop doing the same writes. Without --postgres-url only SQLite runs.

                    usage: LedgerBench --scale-steps N1,N2,… --database-url URL [--transfers-per-account T] [--max-transfers X]
                                       [--bulk-growth] [--prewarm] [--measured M] [--hubd PATH] [--output FILE]
                    Grows a migrated hub's ledger to N1, N2, … accounts (T transfers per account, default 10, but no
                    more than X in the ledger) and at each step measures 64 concurrent callers' single transfers
                    (M, default 20000) and `hubd verify`. --bulk-growth (PostgreSQL) grows it by SQL instead of
                    the kernel's batches; --prewarm (PostgreSQL) measures again once what a transfer touches is
                    in the cache. The options after --scale-steps need it first.
                    """
                )
                exit(0)
            default: throw BenchError("unknown argument \(argument) (try --help)")
            }
        }
        if let growth = options.growth, growth.databaseURL.isEmpty { throw BenchError("--scale-steps needs --database-url") }
        return options
    }

    func count(_ base: Int) -> Int { max(64, Int(Double(base) * scale)) }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

/// Collects per-call latencies and reports percentiles.
struct Latencies {
    var samples: [Duration] = []
    mutating func add(_ d: Duration) { samples.append(d) }
    func percentile(_ p: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int(Double(sorted.count) * p))
        return sorted[index].milliseconds
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}

func printTable(_ results: [BenchResult]) {
    let header = ["backend", "mode", "transfers", "seconds", "transfers/s", "min-max", "p50 ms", "p99 ms", "calls/commit"]
    let rows = results.map { r in
        [
            r.backend, r.mode, String(r.transfers), String(format: "%.2f", r.seconds), String(format: "%.0f", r.transfers_per_sec),
            r.runs.map { _ in String(format: "%.0f-%.0f", r.min_per_sec!, r.max_per_sec!) } ?? "-",
            r.p50_ms.map { String(format: "%.2f", $0) } ?? "-", r.p99_ms.map { String(format: "%.2f", $0) } ?? "-",
            r.calls_per_commit.map { String(format: "%.1f", $0) } ?? "-",
        ]
    }
    let widths = header.indices.map { column in ([header[column]] + rows.map { $0[column] }).map(\.count).max()! }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index < 2
                ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[index] - cell.count) + cell
        }.joined(separator: "  ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    for row in rows { print(line(row)) }
}
