import CLibPQ
import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// What one `hubd` tells the others on the same PostgreSQL at once, through `LISTEN`/`NOTIFY`: the
/// event log grew (their ``EventBus`` wakes, so a live stream on any instance sees an event as
/// soon as it commits, not at the next poll), and credentials changed (their authentication
/// caches forget, so a revoked key or session is refused everywhere at once).
///
/// Channels are named after the schema (`hub_e_public`), as PostgreSQL's channels are per
/// database: hubs kept in different schemas of one database do not wake each other.
///
/// A notification sent inside a transaction is delivered at its commit, in commit order, and
/// never for a transaction that rolls back; a write transaction that appended events sends one
/// just before its commit (``TransactionState``), so no writer has to remember. Its payload is
/// the sequence of the transaction's newest event, so a listener (this instance's own included)
/// tells its bus without reading the counter back. The listener keeps one connection of its own
/// on a thread of its own (waiting on a socket is blocking I/O, kept off Swift's cooperative
/// pool). After a reconnection it reports both signals once: what it missed while away is then
/// read from the database like anything else.
public final class ClusterSignals: Service, Sendable {
    /// The channels, one per kind of signal; the raw value starts the channel's name, the schema
    /// ends it.
    public enum Channel: String, Sendable, CaseIterable {
        case events = "hub_e_"
        case credentials = "hub_c_"

        /// The channel's name, computed by the server from the session's schema (at most 63
        /// bytes, PostgreSQL's limit for a name).
        var nameExpression: String { "left('\(rawValue)' || current_schema(), 63)" }
    }

    private let uri: String
    private let logger: Logger
    private let onEvents: @Sendable (_ lastEvent: Int64?) -> Void
    private let onCredentials: @Sendable () -> Void
    /// Notifications received, per channel (for tests and metrics).
    private let received = Mutex<[Channel: Int]>([:])

    /// - Parameters:
    ///   - onEvents: called with the newest event sequence the notifications named, or `nil`
    ///     when they named none (after a reconnection, or from ``announce(_:on:)``).
    public init(
        uri: String,
        logger: Logger,
        onEvents: @escaping @Sendable (_ lastEvent: Int64?) -> Void,
        onCredentials: @escaping @Sendable () -> Void
    ) {
        self.uri = uri
        self.logger = logger
        self.onEvents = onEvents
        self.onCredentials = onCredentials
    }

    /// Notifications received on `channel` since start.
    public func count(_ channel: Channel) -> Int { received.withLock { $0[channel] ?? 0 } }

    /// The statement that signals `channel` to every listener when the caller's transaction
    /// commits (PostgreSQL folds repeats within one transaction into one), with the sequence of
    /// the transaction's newest event when it appended some.
    static func notification(_ channel: Channel, lastEvent: Int64? = nil) -> SQL {
        let payload = lastEvent.map { String($0) } ?? ""
        return switch channel {
        case .events: "SELECT pg_notify(left('hub_e_' || current_schema(), 63), \(payload))"
        case .credentials: "SELECT pg_notify(left('hub_c_' || current_schema(), 63), \(payload))"
        }
    }

    /// Signals `channel` now, outside any other write (credentials changed after their commit).
    public static func announce(_ channel: Channel, on database: Database) async throws {
        guard database.dialect == .postgres else { return }
        try await database.write { connection in _ = try connection.query(notification(channel)) }
    }

    public func run() async throws {
        let listener = try Listener(uri: uri, logger: logger) { [self] channel, lastEvent in
            received.withLock { $0[channel, default: 0] += 1 }
            switch channel {
            case .events: onEvents(lastEvent)
            case .credentials: onCredentials()
            }
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await listener.finished()
            } onGracefulShutdown: {
                listener.stop()
            }
        } onCancel: {
            listener.stop()
        }
    }
}

/// The listening thread: connects, `LISTEN`s, waits on the socket and a wake-up pipe, reconnects
/// with a growing pause when the connection breaks.
private final class Listener: Sendable {
    private let uri: String
    private let logger: Logger
    /// Delivers a signal with the newest event sequence its notifications named, if any.
    private let deliver: @Sendable (ClusterSignals.Channel, _ lastEvent: Int64?) -> Void
    /// Written to by ``stop()``: wakes the thread out of `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Mutex<(stopped: Bool, ended: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, false, []))
    /// The channel names of this connection's schema, and which signal each carries.
    private let channels = Mutex<[String: ClusterSignals.Channel]>([:])

    init(uri: String, logger: Logger, deliver: @escaping @Sendable (ClusterSignals.Channel, _ lastEvent: Int64?) -> Void) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw DatabaseError(.connection, "cannot make the listener's wake-up pipe") }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        self.uri = uri
        self.logger = logger
        self.deliver = deliver
        let thread = Thread { [self] in
            loop()
            close(wakeRead)
            close(wakeWrite)
            let waiting = state.withLock { state in
                state.ended = true
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
        thread.name = "hub-cluster-signals"
        thread.start()
    }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped && !state.ended
        }
        if first { _ = write(wakeWrite, [UInt8(1)], 1) }
    }

    func finished() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state in
                if !state.ended { state.waiting.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func loop() {
        var pause: Int32 = 100  // milliseconds before a reconnection; doubles to 5 s
        while !stopped {
            if let connection = connect() {
                pause = 100
                // Anything committed while this instance was not listening is in the database.
                deliver(.events, nil)
                deliver(.credentials, nil)
                listen(on: connection)
                PQfinish(connection)
            }
            if !stopped {
                waitForWake(milliseconds: pause)
                pause = min(pause * 2, 5_000)
            }
        }
    }

    private func connect() -> OpaquePointer? {
        guard let connection = PQconnectdb(uri) else { return nil }
        guard PQstatus(connection) == CONNECTION_OK else {
            logger.warning("cluster signals cannot connect; retrying", metadata: ["error": "\(String(cString: PQerrorMessage(connection)))"])
            PQfinish(connection)
            return nil
        }
        let names = PQexec(connection, "SELECT " + ClusterSignals.Channel.allCases.map(\.nameExpression).joined(separator: ", "))
        defer { PQclear(names) }
        guard PQresultStatus(names) == PGRES_TUPLES_OK, PQntuples(names) == 1 else {
            logger.warning(
                "cluster signals cannot name their channels; retrying",
                metadata: ["error": "\(String(cString: PQerrorMessage(connection)))"]
            )
            PQfinish(connection)
            return nil
        }
        var channels: [String: ClusterSignals.Channel] = [:]
        for (column, channel) in ClusterSignals.Channel.allCases.enumerated() {
            channels[String(cString: PQgetvalue(names, 0, Int32(column)))] = channel
        }
        let statement = channels.keys.map { "LISTEN \"\($0.replacingOccurrences(of: "\"", with: "\"\""))\";" }.joined(separator: " ")
        let result = PQexec(connection, statement)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            logger.warning("cluster signals cannot LISTEN; retrying", metadata: ["error": "\(String(cString: PQerrorMessage(connection)))"])
            PQfinish(connection)
            return nil
        }
        self.channels.withLock { $0 = channels }
        return connection
    }

    /// Delivers notifications until the connection breaks or ``stop()`` is called.
    private func listen(on connection: OpaquePointer) {
        let socket = PQsocket(connection)
        while !stopped {
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard PQconsumeInput(connection) == 1 else {
                logger.warning(
                    "cluster signals lost the connection; reconnecting",
                    metadata: ["error": "\(String(cString: PQerrorMessage(connection)))"]
                )
                return
            }
            let names = self.channels.withLock { $0 }
            // A burst of commits wakes each reader once: it reads the log from its own cursor. The
            // newest sequence named is the burst's, unless one notification named none.
            var signalled: [ClusterSignals.Channel: Int64?] = [:]
            while let notification = PQnotifies(connection) {
                if let channel = names[String(cString: notification.pointee.relname)] {
                    let named = Int64(String(cString: notification.pointee.extra))
                    if let earlier = signalled[channel] {
                        signalled[channel] = .some(Self.newest(earlier, named))
                    } else {
                        signalled[channel] = .some(named)
                    }
                }
                PQfreemem(notification)
            }
            for channel in ClusterSignals.Channel.allCases {
                if let lastEvent = signalled[channel] { deliver(channel, lastEvent) }
            }
        }
    }

    /// The newer of two named sequences; unknown when either is.
    private static func newest(_ a: Int64?, _ b: Int64?) -> Int64? {
        guard let a, let b else { return nil }
        return max(a, b)
    }

    private func waitForWake(milliseconds: Int32) {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, milliseconds)
    }
}
