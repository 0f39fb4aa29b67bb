import Foundation
import HubTestSupport
import Testing

@testable import HubKernel

/// SQLite's write-ahead log is copied into the database file beside the writer, not in its
/// commits, and stays bounded however far the checkpointer falls behind.
@Suite("SQLite's checkpointer")
struct SQLiteCheckpointerTests {
    @Test("the writer asks for a checkpoint every thousand log pages, and checkpoints itself only past the bound")
    func policy() async throws {
        let test = try await TestDatabase.make(.sqlite)
        guard case .sqlite(let path) = test.url else { return }
        let checkpointer = try await SQLiteCheckpointer(path: path)
        let policy = SQLiteCheckpointPolicy(checkpointer: checkpointer)
        let background = SQLiteCheckpointer.backgroundFrames
        let steps: [(frames: Int, action: SQLiteCheckpointPolicy.Action)] = [
            (10, .none), (background - 1, .none), (background, .background), (background + 500, .none),
            (2 * background + 10, .background), (2 * background + 20, .none),
            // The log started over: the next request comes at the threshold again.
            (30, .none), (background + 5, .background),
            (SQLiteCheckpointer.inlineFrames, .inline), (SQLiteCheckpointer.inlineFrames + 40, .inline),
        ]
        for (frames, expected) in steps {
            #expect(policy.committed(frames: frames) == expected, "after a commit leaving \(frames) pages")
        }
        await checkpointer.close()
        await test.cleanup()
    }

    @Test("a writer's connection that cannot open throws, its hook never installed")
    func failedOpen() async throws {
        let test = try await TestDatabase.make(.sqlite)
        guard case .sqlite(let path) = test.url else { return }
        let checkpointer = try await SQLiteCheckpointer(path: path)
        // A folder is no database file: opening it fails after the checkpointer's policy is set.
        let folder = (path as NSString).deletingLastPathComponent
        #expect(throws: DatabaseError.self) { _ = try SQLiteConnection(path: folder, checkpointer: checkpointer) }
        await checkpointer.close()
        await test.cleanup()
    }

    @Test("checkpoints run beside the writer, copy its pages, and the log stays within the bound")
    func checkpointsBesideTheWriter() async throws {
        try await withDatabase(on: .sqlite) { database in
            guard case .sqlite(let path) = database.url else { return }
            // About a log page a row: three times the bound in all, twenty rows a commit.
            let rowsPerCommit = 20
            let commits = 3 * SQLiteCheckpointer.inlineFrames / rowsPerCommit
            let pageSize = try await database.read { try $0.queryFirst("PRAGMA page_size")?.int("page_size") }
            // A log frame is a page and its 24-byte header.
            let frameBytes = Int(try #require(pageSize)) + 24
            var largestLog = 0
            try await Self.writePages(database, commits: commits, rowsPerCommit: rowsPerCommit) {
                let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
                largestLog = max(largestLog, log)
            }
            try await eventually("a checkpoint beside the writer") { database.backgroundCheckpoints.completed > 0 }
            let done = database.backgroundCheckpoints
            // The first is asked for when the log holds the threshold's pages, and copies them all.
            #expect(done.mostCopied >= SQLiteCheckpointer.backgroundFrames, "\(done)")
            // Past the bound the writer checkpoints in its commits; a few commits may pass while a
            // checkpoint beside it keeps its own busy (a commit is 20 rows and a few index pages).
            let slack = 5 * (rowsPerCommit + 10)
            #expect(largestLog <= (SQLiteCheckpointer.inlineFrames + slack) * frameBytes + 32, "log reached \(largestLog) bytes")
            let rows = try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM checkpoint_pages")?.int("n") }
            #expect(rows == Int64(commits * rowsPerCommit))
        }
    }

    @Test("a database closed right after its writer asked for a checkpoint reopens whole")
    func closeWhileQueued() async throws {
        let test = try await TestDatabase.make(.sqlite)
        let rows = 2 * SQLiteCheckpointer.backgroundFrames
        do {
            let database = try await Database.open(test.url)
            try await Self.writePages(database, commits: rows / 100, rowsPerCommit: 100)
            #expect(database.backgroundCheckpoints.requested >= 1)
            await database.close()
            let reopened = try await Database.open(test.url)
            let count = try await reopened.read { try $0.queryFirst("SELECT count(*) AS n FROM checkpoint_pages")?.int("n") }
            #expect(count == Int64(rows))
            let check = try await reopened.read { try $0.queryFirst("PRAGMA integrity_check")?.text("integrity_check") }
            #expect(check == "ok")
            await reopened.close()
        } catch {
            await test.cleanup()
            throw error
        }
        await test.cleanup()
    }

    /// Creates `checkpoint_pages` and fills it with rows of about a page each, `rowsPerCommit` to
    /// a commit, calling `afterEach` after every commit.
    static func writePages(_ database: Database, commits: Int, rowsPerCommit: Int, afterEach: () -> Void = {}) async throws {
        try await database.write { try $0.executeScript("CREATE TABLE checkpoint_pages (n INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        for commit in 0..<commits {
            try await database.write { connection in
                for row in 0..<rowsPerCommit {
                    try connection.execute("INSERT INTO checkpoint_pages (n, body) VALUES (\(commit * rowsPerCommit + row), randomblob(3000))")
                }
            }
            afterEach()
        }
    }
}
