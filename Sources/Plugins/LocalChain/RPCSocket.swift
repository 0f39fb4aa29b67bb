import ChainKit
import Synchronization

/// One WebSocket connection's JSON-RPC state: its `eth_subscribe` subscriptions and its outbox,
/// the one queue of everything the server sends on it (answers and notifications, in order).
///
/// The outbox is bounded: a client that reads more slowly than blocks come would otherwise grow
/// the server's memory without end. When it is full, the connection is marked ``overflowed`` and
/// the outbox ends; the connection then closes with a reason (geth drops such a client too). Pure
/// bookkeeping, no I/O: the route reads and writes the socket.
final class RPCSocket: Sendable {
    enum Kind: Sendable, Equatable {
        case newHeads
        /// Logs of new blocks from any of `addresses` (none: any) matching `topics` by position.
        case logs(addresses: [EthereumAddress], topics: [[String]])
    }

    struct Limits: Sendable, Equatable {
        /// Subscriptions one connection may hold.
        var subscriptions = 100
        /// Messages waiting to be written before the connection is closed as too slow.
        var pending = 4_096
    }

    private struct Subscription {
        var kind: Kind
        /// Blocks up to this one were sealed before the subscription: it gets later ones only.
        var after: UInt64
        /// Notifications made before the answer that names the subscription was queued: they
        /// follow it, so a client never hears of an id before it learns it.
        var held: [[UInt8]]?
    }

    private struct State {
        var subscriptions: [String: Subscription] = [:]
        var overflowed = false
    }

    let limits: Limits
    /// Everything to write, in order; ends when the connection overflowed (or ``finish()``).
    let outbox: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let state = Mutex(State())

    init(limits: Limits) {
        self.limits = limits
        (outbox, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(limits.pending))
    }

    /// Whether the client fell more than ``Limits/pending`` messages behind.
    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// Subscriptions held now.
    var count: Int { state.withLock { $0.subscriptions.count } }

    /// Adds a subscription to blocks after `head`; its id (`0x` and 32 hex digits), or `nil` when
    /// the connection holds ``Limits/subscriptions`` already.
    func subscribe(_ kind: Kind, after head: UInt64) -> String? {
        let id = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
        return state.withLock { state in
            guard state.subscriptions.count < limits.subscriptions else { return nil }
            state.subscriptions[id] = Subscription(kind: kind, after: head, held: [])
            return id
        }
    }

    /// Removes a subscription; `false` when the connection has none with that id.
    func unsubscribe(_ id: String) -> Bool {
        state.withLock { $0.subscriptions.removeValue(forKey: id.lowercased()) != nil }
    }

    /// Queues the answer to one client message (`nil` when it held only notifications), then
    /// the notifications held for the subscriptions it made.
    func answered(_ answer: [UInt8]?) {
        state.withLock { state in
            if let answer { enqueue(answer, &state) }
            for id in state.subscriptions.keys {
                guard let held = state.subscriptions[id]?.held else { continue }
                state.subscriptions[id]?.held = nil
                for notification in held { enqueue(notification, &state) }
            }
        }
    }

    /// Queues the notifications `block` earns: its header for `newHeads`, its matching logs
    /// (in log order) for `logs`.
    func receive(_ block: SealedBlockNotice) {
        state.withLock { state in
            for (id, subscription) in state.subscriptions where block.number > subscription.after {
                var notifications: [[UInt8]] = []
                switch subscription.kind {
                case .newHeads:
                    notifications.append(Self.notification(id, block.header))
                case .logs(let addresses, let topics):
                    let filter = LogFilter(fromBlock: block.number, toBlock: block.number, addresses: addresses, topics: topics)
                    for log in block.logs where filter.matches(log.log) { notifications.append(Self.notification(id, log.json)) }
                }
                if var held = subscription.held {
                    held += notifications
                    guard held.count <= limits.pending else {
                        overflow(&state)
                        return
                    }
                    state.subscriptions[id]?.held = held
                } else {
                    for notification in notifications { enqueue(notification, &state) }
                }
            }
        }
    }

    /// Ends the outbox (the connection is closing).
    func finish() { continuation.finish() }

    private func enqueue(_ message: [UInt8], _ state: inout State) {
        guard !state.overflowed else { return }
        if case .dropped = continuation.yield(message) { overflow(&state) }
    }

    private func overflow(_ state: inout State) {
        state.overflowed = true
        state.subscriptions = [:]
        continuation.finish()
    }

    /// `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}`
    /// around a result already encoded.
    static func notification(_ id: String, _ result: [UInt8]) -> [UInt8] {
        var out = Array(#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"#.utf8)
        RPCJSON.quote(id, into: &out)
        out += #","result":"#.utf8
        out += result
        out += "}}".utf8
        return out
    }
}
