import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization

/// What ``NodeConnection/connect(url:logger:_:)``'s body returned (a `Mutex` is not copyable,
/// so an escaping closure cannot capture one itself).
private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// Why a call to a node failed.
enum NodeRPCError: Error, CustomStringConvertible {
    /// The node answered a JSON-RPC error (1010 "Invalid Transaction", 1013 "Transaction Already
    /// Imported", … with `data` the reason, for the author calls).
    case rpc(code: Int, message: String, data: String?)
    /// The connection is gone (or never came up).
    case disconnected(String)
    /// No answer in time.
    case timeout(String)
    /// An answer of the wrong shape.
    case unexpected(String)

    var description: String {
        switch self {
        case .rpc(let code, let message, let data): "node error \(code): \(message)" + (data.map { " (\($0))" } ?? "")
        case .disconnected(let reason): "not connected to the node: \(reason)"
        case .timeout(let method): "the node did not answer \(method) in time"
        case .unexpected(let what): "unexpected answer from the node: \(what)"
        }
    }
}

/// One WebSocket connection to a Substrate node's JSON-RPC: calls matched to their answers by
/// id, and subscriptions (`author_submitAndWatchExtrinsic`) whose notifications arrive as a
/// stream. One task reads the socket (``connect(url:logger:_:)``); any number of callers share it.
final class NodeConnection: Sendable {
    /// The largest message taken: a runtime's metadata is about 0.5 MB of hex.
    static let maximumFrame = 16 << 20

    /// A call's answer: its result, or for a subscribing call the subscription's id and updates.
    enum Answer: Sendable {
        case value(NodeJSON)
        case subscription(id: String, updates: AsyncStream<NodeJSON>)
    }

    private enum Slot {
        case waiting(CheckedContinuation<Answer, any Error>?, subscribes: Bool)
        case answered(Result<Answer, any Error>)
    }

    private struct State {
        var nextID = 1
        var slots: [Int: Slot] = [:]
        var subscriptions: [String: AsyncStream<NodeJSON>.Continuation] = [:]
        var closed: NodeRPCError?
    }

    private let outbound: WebSocketOutboundWriter
    private let state = Mutex(State())

    private init(outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    /// Connects to `url` (`ws://` or `wss://`) and runs `body` with the connection; the connection
    /// closes when `body` returns. A dropped connection fails every call in flight with
    /// ``NodeRPCError/disconnected(_:)``, and `body` with it.
    static func connect<T: Sendable>(
        url: String,
        logger: Logger,
        _ body: @escaping @Sendable (NodeConnection) async throws -> T
    ) async throws -> T {
        let result = ResultBox<T>()
        try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: maximumFrame), logger: logger) { inbound, outbound, _ in
            let connection = NodeConnection(outbound: outbound)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await message in inbound.messages(maxSize: maximumFrame) {
                            guard case .text(let text) = message else { continue }
                            connection.receive(text)
                        }
                    } catch {
                        connection.close(.disconnected("\(error)"))
                        throw error
                    }
                    connection.close(.disconnected("the node closed the connection"))
                    throw NodeRPCError.disconnected("the node closed the connection")
                }
                group.addTask {
                    let value = try await body(connection)
                    result.value.withLock { $0 = value }
                }
                // The first to end (the body, or the socket) ends the other.
                defer { group.cancelAll() }
                try await group.next()
            }
        }
        guard let value = result.value.withLock({ $0 }) else { throw NodeRPCError.disconnected("the connection ended") }
        return value
    }

    /// `method(params)`'s result.
    func call(_ method: String, _ params: [NodeJSON] = [], timeout: Duration = .seconds(30)) async throws -> NodeJSON {
        guard case .value(let value) = try await request(method, params, subscribes: false, timeout: timeout) else {
            throw NodeRPCError.unexpected("\(method) answered a subscription")
        }
        return value
    }

    /// Starts a subscription: its id and its notifications' `result`s, until it is unsubscribed
    /// or the connection drops (the stream then ends).
    func subscribe(_ method: String, _ params: [NodeJSON], timeout: Duration = .seconds(30)) async throws -> (
        id: String, updates: AsyncStream<NodeJSON>
    ) {
        guard case .subscription(let id, let updates) = try await request(method, params, subscribes: true, timeout: timeout) else {
            throw NodeRPCError.unexpected("\(method) answered no subscription id")
        }
        return (id, updates)
    }

    /// Forgets a subscription's stream (its updates end).
    func endSubscription(_ id: String) {
        state.withLock { $0.subscriptions.removeValue(forKey: id) }?.finish()
    }

    private func request(_ method: String, _ params: [NodeJSON], subscribes: Bool, timeout: Duration) async throws -> Answer {
        let id: Int = try state.withLock { state in
            if let closed = state.closed { throw closed }
            defer { state.nextID += 1 }
            state.slots[state.nextID] = .waiting(nil, subscribes: subscribes)
            return state.nextID
        }
        let text = NodeJSON.object(["jsonrpc": .string("2.0"), "id": .number(String(id)), "method": .string(method), "params": .array(params)]).text
        return try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in self.wait(id, continuation) }
            }
            group.addTask {
                do {
                    try await self.outbound.write(.text(text))
                } catch {
                    self.fail(id, error is CancellationError ? error : NodeRPCError.disconnected("\(error)"))
                }
                return nil
            }
            // The deadline runs from the start, so a write that never completes times out too.
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                    self.fail(id, NodeRPCError.timeout(method))
                } catch {
                    // Cancelled because the answer came (the slot is gone, this does nothing) or
                    // by the caller: the waiting continuation must not hang either way.
                    self.fail(id, error)
                }
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let answer = next { return answer }
            }
            throw NodeRPCError.timeout(method)
        }
    }

    private func wait(_ id: Int, _ continuation: CheckedContinuation<Answer, any Error>) {
        let early: Result<Answer, any Error>? = state.withLock { state in
            switch state.slots[id] {
            case .waiting(_, let subscribes):
                state.slots[id] = .waiting(continuation, subscribes: subscribes)
                return nil
            case .answered(let result):
                state.slots[id] = nil
                return result
            case nil:
                return .failure(NodeRPCError.disconnected("the call was abandoned"))
            }
        }
        if let early { continuation.resume(with: early) }
    }

    /// Settles call `id` with `result`: resumes its caller, or keeps the result until it waits.
    private func settle(_ id: Int, _ result: Result<Answer, any Error>) {
        let continuation: CheckedContinuation<Answer, any Error>? = state.withLock { state in
            guard case .waiting(let continuation, _) = state.slots[id] else { return nil }
            if let continuation {
                state.slots[id] = nil
                return continuation
            }
            state.slots[id] = .answered(result)
            return nil
        }
        continuation?.resume(with: result)
    }

    private func fail(_ id: Int, _ error: any Error) { settle(id, .failure(error)) }

    /// One message from the node: an answer to a call, or a subscription's notification.
    private func receive(_ text: String) {
        guard let message = NodeJSON(parsing: text) else { return }
        if let id = message["id"]?.unsigned.flatMap({ Int(exactly: $0) }) {
            if let error = message["error"] {
                let code = error["code"]?.unsigned.flatMap { Int(exactly: $0) } ?? Self.negativeCode(error["code"]) ?? 0
                let data: String? = error["data"].map { $0.string ?? $0.text }
                settle(id, .failure(NodeRPCError.rpc(code: code, message: error["message"]?.string ?? "", data: data)))
                return
            }
            let result = message["result"] ?? .null
            // A subscribing call's stream is made here, before its caller resumes, so no
            // notification sent right after the answer is lost.
            let subscribes: Bool = state.withLock { state in
                if case .waiting(_, let subscribes) = state.slots[id] { return subscribes }
                return false
            }
            guard subscribes else {
                settle(id, .success(.value(result)))
                return
            }
            guard let subscription = result.string ?? (result.unsigned.map { String($0) }) else {
                settle(id, .failure(NodeRPCError.unexpected("no subscription id: \(result.text)")))
                return
            }
            let (updates, continuation) = AsyncStream.makeStream(of: NodeJSON.self)
            state.withLock { $0.subscriptions[subscription] = continuation }
            settle(id, .success(.subscription(id: subscription, updates: updates)))
            return
        }
        guard let params = message["params"], let subscription = params["subscription"] else { return }
        let key = subscription.string ?? subscription.text
        _ = state.withLock { $0.subscriptions[key] }?.yield(params["result"] ?? .null)
    }

    private static func negativeCode(_ value: NodeJSON?) -> Int? {
        guard case .number(let text) = value else { return nil }
        return Int(text)
    }

    /// The connection is gone: every call in flight fails, every subscription ends.
    private func close(_ error: NodeRPCError) {
        let (waiting, subscriptions) = state.withLock { state in
            state.closed = error
            let waiting = state.slots.compactMap { _, slot -> CheckedContinuation<Answer, any Error>? in
                if case .waiting(let continuation, _) = slot { return continuation }
                return nil
            }
            // Slots nobody waits on yet fail when their caller comes to wait.
            state.slots = state.slots.mapValues { _ in .answered(.failure(error)) }
            let subscriptions = Array(state.subscriptions.values)
            state.subscriptions = [:]
            return (waiting, subscriptions)
        }
        for continuation in waiting { continuation.resume(throwing: error) }
        for subscription in subscriptions { subscription.finish() }
    }
}
