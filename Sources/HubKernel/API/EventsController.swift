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

    private enum Wakeup: Sendable { case events, heartbeat, stop }

    /// Writes events after `after` as they appear, until the client goes away (a write throws) or
    /// the server shuts down gracefully (the stream ends so shutdown does not wait on it).
    private static func pump(
        bus: EventBus,
        after: Int64,
        filter: EventFilter,
        heartbeat: Duration,
        writer: inout any ResponseBodyWriter
    ) async throws {
        var cursor = after
        try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
        let (wakeups, wake) = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .bufferingNewest(1))
        // A newer wakeup can replace `.stop` in the one-slot buffer, so stopping also sets this.
        let stopped = StopFlag()
        try await bus.withSubscription { signals in
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in signals { wake.yield(.events) }
                        stopped.set()
                        wake.yield(.stop)  // the bus stopped
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: heartbeat)
                            wake.yield(.heartbeat)
                        }
                    }
                    defer { group.cancelAll() }
                    for await wakeup in wakeups {
                        if stopped.isSet { return }
                        switch wakeup {
                        case .stop:
                            return
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        case .events:
                            while true {
                                let from = cursor
                                let page = try await bus.database.read { try EventLog.read(after: from, limit: 500, filter: filter, on: $0) }
                                for event in page {
                                    try await writer.write(
                                        ByteBuffer(string: "id: \(event.sequence)\nevent: \(event.type)\ndata: \(EventLog.envelope(event))\n\n")
                                    )
                                    cursor = event.sequence
                                }
                                if page.count < 500 { break }
                            }
                        }
                    }
                }
            } onGracefulShutdown: {
                stopped.set()
                wake.yield(.stop)
            }
        }
    }
}

/// Set once, read from any task.
private final class StopFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

extension HTTPField.Name {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
