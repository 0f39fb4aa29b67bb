import ChainKit
import Synchronization

/// The filters of `eth_newFilter` and `eth_newBlockFilter`, polled with `eth_getFilterChanges`:
/// each remembers the last block it reported, so a poll answers what was sealed since. Held in
/// memory, per process, as nodes do: a filter not polled for five minutes is forgotten (a client
/// then gets "filter not found" and makes a new one), and a process holds at most
/// ``maxFilters``. Pure bookkeeping; the caller reads the chain.
final class RPCFilters: Sendable {
    enum Kind: Sendable, Equatable {
        /// Logs matching a filter; `from`/`to` `nil` mean the head when polled.
        case logs(from: UInt64?, to: UInt64?, addresses: [EthereumAddress], topics: [[String]])
        case blocks
    }

    struct Filter: Sendable, Equatable {
        var chainID: UInt64
        var kind: Kind
        /// The last block whose contents were reported.
        var lastBlock: UInt64
        var lastPollMs: Int64
    }

    static let maxFilters = 1_000
    static let idleMs: Int64 = 5 * 60 * 1_000

    private let filters = Mutex([String: Filter]())

    /// Installs a filter that reports blocks after `head`; returns its id, or `nil` when full.
    func install(chainID: UInt64, kind: Kind, head: UInt64, nowMs: Int64) -> String? {
        let id = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
        return filters.withLock { filters in
            filters = filters.filter { nowMs - $0.value.lastPollMs < Self.idleMs }
            guard filters.count < Self.maxFilters else { return nil }
            filters[id] = Filter(chainID: chainID, kind: kind, lastBlock: head, lastPollMs: nowMs)
            return id
        }
    }

    /// The filter with `id` on `chainID`, or `nil` (unknown, expired, or another chain's).
    func filter(_ id: String, chainID: UInt64, nowMs: Int64) -> Filter? {
        filters.withLock { filters in
            guard let filter = filters[id.lowercased()], filter.chainID == chainID else { return nil }
            guard nowMs - filter.lastPollMs < Self.idleMs else {
                filters[id.lowercased()] = nil
                return nil
            }
            return filter
        }
    }

    /// Records that a poll reported everything up to `head`.
    func polled(_ id: String, head: UInt64, nowMs: Int64) {
        filters.withLock { filters in
            filters[id.lowercased()]?.lastBlock = head
            filters[id.lowercased()]?.lastPollMs = nowMs
        }
    }

    /// Removes a filter; `false` when there was none.
    func uninstall(_ id: String, chainID: UInt64) -> Bool {
        filters.withLock { filters in
            guard filters[id.lowercased()]?.chainID == chainID else { return false }
            filters[id.lowercased()] = nil
            return true
        }
    }
}
