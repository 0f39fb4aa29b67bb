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
/// any checkpoint copies them; after a crash the log is read again when the database opens, and a
/// later checkpoint copies what the lost one did not.
final class SQLiteCheckpointer: Sendable {
    /// Log pages that start a checkpoint beside the writer (the threshold SQLite's automatic
    /// checkpoint uses by default).
    static let backgroundFrames = 1_000
    /// Log pages past which the writer checkpoints in its own commit, as SQLite's automatic
    /// checkpoint does at 1,000.
    static let inlineFrames = 8_000

    private let worker: DatabaseWorker
    /// A checkpoint is queued or running: the writer's commits ask again only once it is done.
    private let scheduled = Atomic<Bool>(false)
    private let statistics = Mutex(Statistics())

    /// What was asked of the checkpointer and what it did, since the database opened.
    struct Statistics: Equatable {
        /// Checkpoints queued at the writer's request.
        var requested = 0
        /// Checkpoints that ran to the end (not busy, not failed).
        var completed = 0
        /// Checkpoints that failed or found the log busy; their pages wait for the next one.
        var failed = 0
        /// The most pages of the log a checkpoint found copied into the database file when it
        /// finished (SQLite counts them from the log's beginning).
        var mostCopied = 0
    }

    init(path: String) async throws {
        worker = try await DatabaseWorker(open: { try SQLiteConnection(path: path) })
    }

    var done: Statistics { statistics.withLock { $0 } }

    /// Queues a checkpoint unless one is queued or running already. Never blocks: the writer's
    /// thread calls it from inside its commit.
    func request() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        statistics.withLock { $0.requested += 1 }
        worker.submit { connection in
            defer { self.scheduled.store(false, ordering: .releasing) }
            guard let connection else { return }
            // A failed or busy checkpoint loses nothing: the pages stay in the log, the next
            // request or the writer's own checkpoint copies them, and an I/O error that matters
            // fails the writer's next commit, where its caller sees it.
            let row = try? connection.queryFirst("PRAGMA wal_checkpoint(PASSIVE)")
            let busy = (try? row?.int("busy")) ?? 1
            let copied = (try? row?.int("checkpointed")) ?? -1
            self.statistics.withLock { statistics in
                guard busy == 0, copied >= 0 else { return statistics.failed += 1 }
                statistics.completed += 1
                statistics.mostCopied = max(statistics.mostCopied, Int(copied))
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
