// Ledger throughput benchmark. Run with `make bench-ledger` (release build, throwaway PostgreSQL).
// Prints a table and writes bench/results/ledger.json.
import Foundation
import HubKernel
import Logging
import ServiceLifecycle

let options = try BenchOptions.parse(CommandLine.arguments)
if let growth = options.growth {
    try await ScaleBench.run(growth, output: options.output)
    exit(0)
}
var results: [BenchResult] = []
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-bench-\(UInt32.random(in: 0...UInt32.max))")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

for run in 1...options.runs {
    for backend in options.backends {
        print("== run \(run) of \(options.runs)")
        let url: DatabaseURL
        switch backend {
        case "sqlite": url = .sqlite(path: scratch.appendingPathComponent("hub-\(run).sqlite").path)
        case "postgres":
            guard let postgres = options.postgresURL else {
                print("(skipping PostgreSQL: no --postgres-url)")
                continue
            }
            url = .postgres(uri: postgres)
            // Start from empty tables so repeated runs measure the same thing.
            let reset = try await Database.open(url, readerCount: 1)
            _ = try await reset.withWriterConnection { connection in
                try connection.executeScript("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            }
            await reset.close()
        default: throw BenchError("unknown backend \(backend)")
        }
        print("== \(backend): \(url)")
        let database = try await Database.open(url)
        try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
        let ledger = Ledger(database: database, logger: Logger(label: "bench"))
        let hubResults = try await withThrowingTaskGroup(of: Void.self, returning: [BenchResult].self) { group in
            for service in ledger.services { group.addTask { try await service.run() } }
            let work = try await HubWorkloads.prepare(ledger, backend: backend, accountCount: 1000)
            let batchedTotal = options.count(backend == "sqlite" ? 200_000 : 100_000)
            let batchedCount = max(8_000, batchedTotal / 8_000 * 8_000)
            var measured: [BenchResult] = []
            func wanted(_ mode: String) -> Bool { options.only.map { $0.contains { mode.hasPrefix($0) } } ?? true }
            if wanted("hub-batched") {
                measured.append(try await work.batched(total: batchedCount, batchSize: 8_000, timeOrdered: true))
                measured.append(try await work.batched(total: batchedCount, batchSize: 8_000, timeOrdered: false))
            }
            if wanted("hub-single-1-") { measured.append(try await work.concurrentSingles(total: options.count(1_000), callers: 1)) }
            if wanted("hub-single-64") { measured.append(try await work.concurrentSingles(total: options.count(25_600), callers: 64)) }
            if wanted("hub-rail-units-64") {
                let rail = RailUnits(work: work)
                try await rail.createTables()
                measured.append(try await rail.run(total: options.count(19_200), callers: 64))
            }
            if wanted("hub-batches-100-16") {
                measured.append(try await work.concurrent(total: options.count(backend == "sqlite" ? 200_000 : 100_000), callers: 16, batchSize: 100))
            }
            group.cancelAll()
            return measured
        }
        printTable(hubResults)
        results += hubResults
        await database.close()

        if options.only.map({ !$0.contains { $0.hasPrefix("baseline") } }) ?? false { continue }
        let store: any BaselineStore =
            backend == "sqlite"
            ? try SQLiteBaseline(path: scratch.appendingPathComponent("baseline-\(run).sqlite").path)
            : try PostgresBaseline(url: options.postgresURL!)
        let batchedTotal = options.count(backend == "sqlite" ? 200_000 : 100_000)
        results.append(
            try Baseline.run(store, backend: backend, total: max(8_000, batchedTotal / 8_000 * 8_000), perTransaction: 8_000, firstSequence: 0)
        )
        results.append(try Baseline.run(store, backend: backend, total: options.count(1_000), perTransaction: 1, firstSequence: 1 << 40))
    }
}
results = medians(results)

print("")
printTable(results)
let finalResults = results
func rate(_ backend: String, _ mode: String) -> Double? {
    finalResults.first { $0.backend == backend && $0.mode == mode }?.transfers_per_sec
}
print("")
for backend in options.backends {
    if let hub = rate(backend, "hub-batched-8000-random-ids"), let base = rate(backend, "baseline-batched-8000") {
        print(String(format: "%@: batched ledger / hand-written loop = %.2f", backend as NSString, hub / base))
    }
    if let units = rate(backend, "hub-rail-units-64-callers"), let single = rate(backend, "hub-single-64-callers") {
        print(String(format: "%@: rail-shaped units / single transfers, 64 callers each = %.2f", backend as NSString, units / single))
    }
    if let many = rate(backend, "hub-single-64-callers"), let one = rate(backend, "hub-single-1-callers") {
        print(String(format: "%@: 64 concurrent callers / 1 caller = %.1fx (group commit)", backend as NSString, many / one))
    }
}

struct Report: Codable {
    var machine: String
    var generated_at: String
    var results: [BenchResult]
}
let machine =
    "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
let data = try encoder.encode(Report(machine: machine, generated_at: ISO8601DateFormatter().string(from: Date()), results: results))
try FileManager.default.createDirectory(at: URL(fileURLWithPath: options.output).deletingLastPathComponent(), withIntermediateDirectories: true)
try data.write(to: URL(fileURLWithPath: options.output))
print("\nwrote \(options.output)")
