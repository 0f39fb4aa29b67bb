import Foundation
import HubKernel
import Logging
import ServiceLifecycle

/// `make bench-scale`: how the ledger's cost grows with its size. One backend per run, on a
/// database `hubd migrate` has prepared: at each step the ledger grows (funded accounts, then
/// batched transfers, `transfersPerAccount` per account in all), then 64 concurrent callers submit
/// single transfers between random accounts of the whole ledger (rate and latency), then
/// `hubd verify` runs on it as its own process under `/usr/bin/time` (seconds and peak memory).
/// The first step is the baseline each later step's rate is compared with.
enum ScaleBench {
    struct Step: Codable {
        var backend: String
        var accounts: Int
        var transfers: Int
        /// How the step grew the ledger: `kernel` (its batched writes) or `bulk` (SQL, BulkGrowth).
        var grown_by: String
        var database_bytes: Int64
        var grow_transfers_per_sec: Double
        var transfers_per_sec: Double
        var p50_ms: Double?
        var p99_ms: Double?
        /// This step's `transfers_per_sec` over the first step's.
        var rate_to_first: Double
        /// With `--prewarm`: the same measurement again once the pages every transfer touches at
        /// random are in the operating system's cache (the first one runs right after growth).
        var warm_transfers_per_sec: Double?
        var warm_p50_ms: Double?
        var warm_p99_ms: Double?
        var verify_seconds: Double
        var verify_max_rss_mb: Double
        var verify_passed: Bool
    }

    struct Options {
        var databaseURL: String
        var backend: String
        var steps: [Int]
        var transfersPerAccount = 10
        var measured = 20_000
        var hubd = ".build/release/hubd"
        /// Grow by SQL (``BulkGrowth``, PostgreSQL) instead of the kernel's batches.
        var bulkGrowth = false
        /// The most transfers (mints included) growth leaves in the ledger: what the disk holds.
        var maxTransfers: Int?
        /// Measure again after reading the touched relations into the cache (PostgreSQL).
        var prewarm = false
    }

    static func run(_ options: Options, output: String) async throws {
        let url = try DatabaseURL(options.databaseURL)
        let database = try await Database.open(url)
        let ledger = Ledger(database: database, logger: Logger(label: "bench-scale"))
        let steps = try await withThrowingTaskGroup(of: Void.self, returning: [Step].self) { group in
            for service in ledger.services { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            return try await grow(ledger, database: database, url: url, options: options)
        }
        await database.close()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(steps).write(to: URL(fileURLWithPath: output))
        print("wrote \(output)")
    }

    private static func grow(_ ledger: Ledger, database: Database, url: DatabaseURL, options: Options) async throws -> [Step] {
        let asset = try await ledger.createAsset(NewAsset(code: AssetCode("SCALE")!, scale: 2, name: "scale benchmark")).value!
        var work = HubWorkloads(ledger: ledger, backend: options.backend, accounts: [], asset: asset.code)
        var grown = 0
        var measuredSoFar = 0
        var steps: [Step] = []
        for target in options.steps {
            // Every account is funded by one mint; growth adds the rest of its transfers.
            let growBy = min(target * options.transfersPerAccount, (options.maxTransfers ?? .max) - target) - grown
            guard growBy >= 0 else { throw BenchError("--max-transfers leaves no room for \(target) accounts' transfers") }
            let growRate: Double
            if options.bulkGrowth {
                let start = ContinuousClock.now
                try await BulkGrowth(asset: asset).grow(from: work.accounts.count, to: target, transfers: growBy, on: database)
                growRate = Double(growBy) / (ContinuousClock.now - start).seconds
                work.accounts = try await wallets(of: asset, on: database)
            } else {
                work.accounts += try await HubWorkloads.fundedAccounts(
                    target - work.accounts.count,
                    numberedFrom: work.accounts.count,
                    asset: asset,
                    on: ledger
                )
                growRate = try await growTransfers(work, by: growBy)
            }
            grown += growBy
            let measured = try await work.concurrentSingles(total: options.measured, callers: 64)
            measuredSoFar += measured.transfers
            var warm: BenchResult?
            if options.prewarm {
                try await prewarm(database)
                warm = try await work.concurrentSingles(total: options.measured, callers: 64)
                measuredSoFar += warm!.transfers
            }
            // Every account was funded by one mint; the measured transfers stay in the ledger too.
            let transfers = work.accounts.count + grown + measuredSoFar
            let verify = try await verifyInOwnProcess(options)
            let first = steps.first?.transfers_per_sec ?? measured.transfers_per_sec
            let step = Step(
                backend: options.backend,
                accounts: work.accounts.count,
                transfers: transfers,
                grown_by: options.bulkGrowth ? "bulk" : "kernel",
                database_bytes: try await size(of: database, at: url),
                grow_transfers_per_sec: growRate,
                transfers_per_sec: measured.transfers_per_sec,
                p50_ms: measured.p50_ms,
                p99_ms: measured.p99_ms,
                rate_to_first: measured.transfers_per_sec / first,
                warm_transfers_per_sec: warm?.transfers_per_sec,
                warm_p50_ms: warm?.p50_ms,
                warm_p99_ms: warm?.p99_ms,
                verify_seconds: verify.seconds,
                verify_max_rss_mb: verify.maxResidentMB,
                verify_passed: verify.passed
            )
            print(
                String(
                    format:
                        "%@: %d accounts, %d transfers, %.0f MB: %.0f transfers/s (%.2f of the first step), p99 %.1f ms; verify %.1f s, %.0f MB%@",
                    options.backend,
                    step.accounts,
                    step.transfers,
                    Double(step.database_bytes) / 1e6,
                    step.transfers_per_sec,
                    step.rate_to_first,
                    step.p99_ms ?? 0,
                    step.verify_seconds,
                    step.verify_max_rss_mb,
                    step.verify_passed ? "" : " (VERIFY FAILED)"
                )
            )
            if let warm { print(String(format: "  warm: %.0f transfers/s, p99 %.1f ms", warm.transfers_per_sec, warm.p99_ms ?? 0)) }
            fflush(nil)
            steps.append(step)
            guard verify.passed else { throw BenchError("hubd verify failed at \(target) accounts") }
        }
        return steps
    }

    /// Grows the ledger by `count` transfers in batches of 8,000, saying how far it got every
    /// million; answers the rate.
    private static func growTransfers(_ work: HubWorkloads, by count: Int) async throws -> Double {
        let batchSize = 8_000
        let start = ContinuousClock.now
        var done = 0
        while done < count {
            let batch = (0..<min(batchSize, count - done)).map { _ in work.randomTransfer(timeOrdered: true) }
            let results = try await work.ledger.submit(batch)
            if let failed = results.first(where: { $0.transfer == nil }) { throw BenchError("a growth transfer failed: \(failed)") }
            let before = done
            done += batch.count
            if done / 1_000_000 > before / 1_000_000 {
                print(
                    String(
                        format: "  %@: %d of %d transfers added (%.0f/s)",
                        work.backend,
                        done,
                        count,
                        Double(done) / (ContinuousClock.now - start).seconds
                    )
                )
                fflush(nil)  // progress shows when the output goes to a file, as in bench-scale.sh
            }
        }
        return Double(count) / max((ContinuousClock.now - start).seconds, 1e-9)
    }

    /// Reads into the operating system's cache what a transfer touches at random: the accounts
    /// (rows and primary key) and the transfers' primary key and account indexes. Appends (the
    /// timestamp index, the events) touch only their last pages.
    private static func prewarm(_ database: Database) async throws {
        try await database.withWriterConnection { connection in
            guard connection.dialect == .postgres else { throw BenchError("--prewarm is written for PostgreSQL (pg_prewarm)") }
            try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm", [])
            let relations = ["ledger_accounts", "ledger_accounts_pkey", "ledger_transfers_pkey", "ledger_transfers_debit", "ledger_transfers_credit"]
            for relation in relations { _ = try connection.query("SELECT pg_prewarm('\(relation)', 'read')", []) }
        }
    }

    /// Every wallet of `asset`, read in pages by id.
    private static func wallets(of asset: Asset, on database: Database) async throws -> [AccountID] {
        var ids: [AccountID] = []
        var after = AccountID(rawValue: 0)
        while true {
            let page = try await database.read { [after] connection in
                try connection.query(
                    "SELECT id FROM ledger_accounts WHERE id > \(after) AND asset = \(asset.code.rawValue) AND owner_kind = 'user' ORDER BY id LIMIT 100000"
                ).map { try AccountID(row: $0, 0) }
            }
            ids += page
            guard page.count == 100_000, let last = page.last else { return ids }
            after = last
        }
    }

    private static func size(of database: Database, at url: DatabaseURL) async throws -> Int64 {
        switch url {
        case .sqlite(let path):
            return [path, path + "-wal"].reduce(0) { total, file in
                total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? 0)
            }
        case .postgres:
            return try await database.read { connection in
                try connection.queryFirst("SELECT pg_database_size(current_database())", [])!.int(0)
            }
        }
    }

    struct Verification {
        var seconds: Double
        var maxResidentMB: Double
        var passed: Bool
    }

    /// Runs `hubd verify` under GNU time, which reports the child's wall time and peak resident
    /// set; waits through the termination handler so no thread of the cooperative pool blocks.
    private static func verifyInOwnProcess(_ options: Options) async throws -> Verification {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-bench-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let timing = scratch.appendingPathComponent("time").path
        let log = scratch.appendingPathComponent("verify.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%e %M", "-o", timing, options.hubd, "verify", "--database-url", options.databaseURL]
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try output.close()
        let fields = (try String(contentsOfFile: timing, encoding: .utf8)).split(whereSeparator: \.isWhitespace).suffix(2)
        guard fields.count == 2, let seconds = Double(fields.first!), let kilobytes = Double(fields.last!) else {
            throw BenchError("could not read GNU time's report: \((try? String(contentsOfFile: timing, encoding: .utf8)) ?? "")")
        }
        if status != 0 { print((try? String(contentsOf: log, encoding: .utf8)) ?? "") }
        return Verification(seconds: seconds, maxResidentMB: kilobytes / 1024, passed: status == 0)
    }
}
