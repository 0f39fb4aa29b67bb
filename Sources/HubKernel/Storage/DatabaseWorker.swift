import NIOPosix

/// One connection and the one thread that may touch it.
///
/// Blocking C calls (sqlite3_step, PQexec) must never run on Swift's cooperative pool, which has a
/// thread per core. Each worker owns a single-thread `NIOThreadPool`: the connection is opened on
/// that thread, every job runs there one at a time in submission order, and it is closed there.
final class DatabaseWorker: @unchecked Sendable {
    // @unchecked: `connection` is only read or written inside jobs on `thread`, a pool of exactly
    // one thread that runs jobs one after another, so it is never accessed concurrently.
    private var connection: (any SQLConnection)?
    private let thread: NIOThreadPool

    init(open: @escaping @Sendable () throws -> any SQLConnection) async throws {
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        do {
            try await thread.runIfActive { self.connection = try open() }
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
    }

    /// Runs `body` with the connection on the worker's thread.
    func run<Result: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> Result) async throws -> Result {
        try await thread.runIfActive {
            guard let connection = self.connection else { throw DatabaseError(.closed, "the database has been closed") }
            return try body(connection)
        }
    }

    /// Queues `body` on the worker's thread without waiting for it: for callers that may not
    /// suspend (a C callback on another worker's thread). When the worker is closed or closing,
    /// `body` runs at once on the caller's thread and gets nil.
    func submit(_ body: @escaping @Sendable ((any SQLConnection)?) -> Void) {
        thread.submit { state in
            guard case .active = state else { return body(nil) }
            body(self.connection)
        }
    }

    /// Closes the connection on its own thread, then stops the thread.
    func close() async {
        _ = try? await thread.runIfActive { self.connection = nil }
        try? await thread.shutdownGracefully()
    }
}
