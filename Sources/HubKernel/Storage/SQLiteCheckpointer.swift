import CSQLite
import Synchronization

/// Copies the write-ahead log of a SQLite database back into the database file on a thread and
/// connection of its own, so the writer does not.
///
/// By default SQLite checkpoints inside the commit that takes the log past 1,000 pages: the
/// writer then copies the pages and waits for an fsync of the database file while every caller
/// of the group behind it waits too. Here the writer's commit only asks this checkpointer, which
/// copies what the log holds beside the writer (a `PASSIVE` checkpoint: it never blocks the
/// writer or a reader). The writer still checkpoints by itself once the log is
/// ``inlineFrames`` long: the log stays bounded if this thread falls behind, and the log can only
/// start over from its beginning after a checkpoint that copied all of it, which a checkpoint
/// running beside a busy writer rarely does (the writer's own then has little left to copy).
///
/// Durability does not depend on it: a commit is durable once its log frames are synced, before
/// any checkpoint; a checkpoint lost in a crash is redone from the log when the database opens.
final class SQLiteCheckpointer: Sendable {
    /// Log pages that start a checkpoint beside the writer (SQLite's own default threshold).
    static let backgroundFrames = 1_000
    /// Log pages past which the writer checkpoints in its commit, as SQLite does by default.
    static let inlineFrames = 8_000

    private let worker: DatabaseWorker
    /// A checkpoint is queued or running: the writer's commits ask again only once it is done.
    private let scheduled = Atomic<Bool>(false)
    private let statistics = Mutex(Statistics())

    /// What the checkpoints beside the writer did so far.
    struct Statistics: Equatable {
        /// Checkpoints run.
        var checkpoints = 0
        /// Log pages they copied into the database file (a page written to the log several times
        /// counts each time).
        var copiedFrames = 0
    }

    init(path: String) async throws {
        worker = try await DatabaseWorker(open: { try SQLiteConnection(path: path) })
    }

    var done: Statistics { statistics.withLock { $0 } }

    /// Queues a checkpoint unless one is queued or running already. Never blocks: the writer's
    /// thread calls it from inside its commit.
    func request() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        worker.submit { connection in
            defer { self.scheduled.store(false, ordering: .releasing) }
            // A failed checkpoint loses nothing: the pages stay in the log, the next request or
            // the writer's own checkpoint copies them, and an I/O error that matters fails the
            // writer's next commit, where its caller sees it.
            guard let connection, let row = try? connection.queryFirst("PRAGMA wal_checkpoint(PASSIVE)"),
                let copied = try? row.int("checkpointed")
            else { return }
            self.statistics.withLock { statistics in
                statistics.checkpoints += 1
                statistics.copiedFrames += Int(max(0, copied))
            }
        }
    }

    func close() async {
        await worker.close()
    }
}

/// When the writer's commits ask for a checkpoint: installed as the writer connection's WAL hook
/// (which replaces SQLite's automatic checkpoint), it sees the log's length after every commit.
/// Only the writer's thread touches it.
final class SQLiteCheckpointPolicy {
    let checkpointer: SQLiteCheckpointer
    /// The log length at which the next background checkpoint is asked for.
    private var nextRequest = SQLiteCheckpointer.backgroundFrames
    private var lastFrames = 0

    init(checkpointer: SQLiteCheckpointer) {
        self.checkpointer = checkpointer
    }

    enum Action: Equatable {
        case none
        case background
        case inline
    }

    /// What to do after a commit that left the log `frames` pages long.
    func committed(frames: Int) -> Action {
        // A shorter log started over from its beginning after a complete checkpoint.
        if frames < lastFrames { nextRequest = SQLiteCheckpointer.backgroundFrames }
        lastFrames = frames
        if frames >= SQLiteCheckpointer.inlineFrames { return .inline }
        guard frames >= nextRequest else { return .none }
        // The next request once as many pages again were written: a checkpoint per commit would
        // sync the database file as often as the writer syncs the log.
        nextRequest = frames + SQLiteCheckpointer.backgroundFrames
        return .background
    }
}

/// The WAL hook: SQLite calls it on the writer's thread after each commit, with the log's length.
func sqliteWALHook(
    _ context: UnsafeMutableRawPointer?,
    _ db: OpaquePointer?,
    _ name: UnsafePointer<CChar>?,
    _ frames: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let policy = Unmanaged<SQLiteCheckpointPolicy>.fromOpaque(context).takeUnretainedValue()
    switch policy.committed(frames: Int(frames)) {
    case .none:
        break
    case .background:
        policy.checkpointer.request()
    case .inline:
        // What SQLite's automatic checkpoint does; busy (the background one is running) is fine:
        // the next commit tries again.
        _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
    return SQLITE_OK
}
