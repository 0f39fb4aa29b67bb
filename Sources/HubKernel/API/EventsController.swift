import HTTPTypes
public import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// `GET /v1/events` (a page of the log) and `GET /v1/events/stream` (Server-Sent Events).
///
/// Both read the durable log, so the stream resumes exactly: each SSE message carries the event's
/// sequence as its `id`, and a reconnect with `Last-Event-ID: N` (or `?after=N`) continues with
/// N+1 — no gap and no duplicate, whatever happened in between.
public struct EventsController: Sendable {
    let bus: EventBus
    /// Seconds between keep-alive comments on an idle stream (proxies close silent connections).
    let heartbeat: Duration

    public init(bus: EventBus, heartbeat: Duration = .seconds(15)) {
        self.bus = bus
        self.heartbeat = heartbeat
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        v1.get("events", use: list)
        v1.get("events/stream", use: stream)
    }

    /// Only admins read the whole log: it names every account and transfer.
    private func authorise(_ context: HubRequestContext) throws {
        let principal = try context.requireScope(.eventsRead)
        guard principal.isAdmin else { throw Problem.forbidden("The event log is for admins.") }
    }

    private static func filter(_ request: Request) throws -> EventFilter {
        guard let raw = request.uri.queryParameters["type"] else { return EventFilter() }
        guard let filter = EventFilter(raw.split(separator: ",").map(String.init)) else {
            throw Problem.invalid("type", "Comma-separated event types, each exact (`ledger.transfer.posted`) or a prefix (`ledger.*`).")
        }
        return filter
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        try authorise(context)
        let filter = try Self.filter(request)
        // `cursor` (the pagination convention) and `after` (the SSE-style name) mean the same.
        let sequence: (String) -> Int64? = { Int64($0).flatMap { $0 >= 0 ? $0 : nil } }
        let after = try request.query("cursor", sequence) ?? request.query("after", sequence) ?? 0
        let limit = try request.pageLimit(default: 100, maximum: 1000)
        let events = try await bus.database.read { try EventLog.read(after: after, limit: limit, filter: filter, on: $0) }
        var json = "{\"data\":["
        json += events.map(EventLog.envelope).joined(separator: ",")
        let next = events.count == limit ? events.last.map { "\"\($0.sequence)\"" } ?? "null" : "null"
        json += "],\"next_cursor\":\(next)}"
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    @Sendable func stream(_ request: Request, context: HubRequestContext) async throws -> Response {
        try authorise(context)
        let filter = try Self.filter(request)
        let resumeHeader = request.headers[.lastEventID]
        var start = try request.query("after") { Int64($0).flatMap { $0 >= 0 ? $0 : nil } } ?? -1
        if let resumeHeader {
            guard let sequence = Int64(resumeHeader), sequence >= 0 else {
                throw Problem.badRequest("`Last-Event-ID` is the sequence of the last event received.", code: "invalid_last_event_id")
            }
            start = sequence
        }
        // Without a starting point the stream begins with the events that arrive from now on.
        let after = start >= 0 ? start : try await bus.database.read { try EventLog.lastSequence(on: $0) }
        let bus = self.bus
        let heartbeat = self.heartbeat
        let body = ResponseBody { writer in
            try await Self.pump(bus: bus, after: after, filter: filter, heartbeat: heartbeat, writer: &writer)
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"],
            body: body
        )
    }

    /// Writes events after `after` as they appear, until the client goes away (a write throws) or
    /// the server shuts down gracefully (the stream ends so shutdown does not wait on it). A
    /// keep-alive comment goes out at every heartbeat, busy or not, so that no proxy between sees
    /// the connection silent for longer than one.
    private static func pump(
        bus: EventBus,
        after: Int64,
        filter: EventFilter,
        heartbeat: Duration,
        writer: inout any ResponseBodyWriter
    ) async throws {
        var cursor = after
        try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
        let wakeups = StreamWakeups()
        try await bus.withStreamSubscription { signals in
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await sequence in signals { wakeups.events(through: sequence) }
                        wakeups.stop()  // the bus stopped
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: heartbeat)
                            wakeups.heartbeat()
                        }
                    }
                    defer { group.cancelAll() }
                    for await _ in wakeups.signals {
                        let due = wakeups.take()
                        if due.stop { return }
                        if let through = due.eventsThrough {
                            try await write(after: &cursor, through: through, filter: filter, bus: bus, writer: &writer)
                        }
                        if due.heartbeat { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
                    }
                }
            } onGracefulShutdown: {
                wakeups.stop()
            }
        }
    }

    /// Writes the events after `cursor` that match `filter`, up to at least `through` (the log's
    /// end when the stream was woken), from the bus's window when it covers them and from the
    /// database otherwise; one write per page.
    private static func write(
        after cursor: inout Int64,
        through: Int64,
        filter: EventFilter,
        bus: EventBus,
        writer: inout any ResponseBodyWriter
    ) async throws {
        let pageSize = 500
        while cursor < through {
            var page = ""
            if let slice = bus.recent.read(after: cursor, through: through, limit: pageSize, filter: filter) {
                for entry in slice.entries { page += entry.message }
                cursor = slice.searchedThrough
            } else {
                let from = cursor
                let events = try await bus.database.read { try EventLog.read(after: from, limit: pageSize, filter: filter, on: $0) }
                for event in events {
                    page += "id: \(event.sequence)\nevent: \(event.type)\ndata: \(EventLog.envelope(event))\n\n"
                }
                // A short page holds every match committed before the read began, which includes
                // everything up to `through`: the cursor may pass events the filter skipped.
                cursor = events.count < pageSize ? max(events.last?.sequence ?? cursor, through) : events.last!.sequence
            }
            if !page.isEmpty { try await writer.write(ByteBuffer(string: page)) }
        }
    }
}

/// What woke a stream, merged: the bus's signals and the heartbeat's ticks accumulate here and a
/// one-slot stream only says "look". (With the wakeups themselves in a one-slot buffer, a
/// heartbeat could replace an unread "new events", and an event committed while the stream was
/// busy writing waited for the next event, however long that took.)
final class StreamWakeups: Sendable {
    struct Due: Equatable {
        /// The newest sequence signalled since the last take, if any.
        var eventsThrough: Int64?
        var heartbeat = false
        var stop = false
    }

    private let due = Mutex(Due())
    /// Yields when something is due; ``take()`` says what.
    let signals: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init() {
        (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// What is due, and nothing after it (but a stop, which stays).
    func take() -> Due {
        due.withLock { current in
            defer { if !current.stop { current = Due() } }
            return current
        }
    }

    func events(through sequence: Int64) {
        due.withLock { $0.eventsThrough = max($0.eventsThrough ?? sequence, sequence) }
        wake.yield()
    }

    func heartbeat() {
        due.withLock { $0.heartbeat = true }
        wake.yield()
    }

    /// Every later take says stop.
    func stop() {
        due.withLock { $0.stop = true }
        wake.yield()
    }
}

extension HTTPField.Name {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
