import ChainKit
import Foundation
import HubKernel

/// `eth_newFilter`, `eth_newBlockFilter`, `eth_getFilterChanges`, `eth_getFilterLogs` and
/// `eth_uninstallFilter`, over ``RPCFilters``. A poll answers what was sealed since the previous
/// one (or since the filter was made): block hashes, or the matching logs.
extension EthereumRPC {
    var nowMs: Int64 { Int64(context.clock.now().nanoseconds / 1_000_000) }

    func newFilter(_ params: [Any], chainID: UInt64) async throws -> String {
        guard let object = params.first as? [String: Any] else { throw RPCError.invalidParams("eth_newFilter takes a filter object") }
        let head = try await chain(chainID).headNumber
        guard object["blockHash"] == nil else { throw RPCError.invalidParams("a filter takes fromBlock/toBlock, not blockHash") }
        // Checked as eth_getLogs checks it; the range's ends stay tags ("latest" moves).
        let checked = try Self.logFilter(object, head: head)
        func end(_ name: String) throws -> UInt64? {
            guard let raw = object[name], !(raw is NSNull) else { return nil }
            switch try Self.blockTag([raw], 0) {
            case .earliest: return 0
            case .latest, .pending, .safe, .finalized: return nil
            case .number(let n): return n
            }
        }
        let kind = RPCFilters.Kind.logs(from: try end("fromBlock"), to: try end("toBlock"), addresses: checked.addresses, topics: checked.topics)
        return try install(kind, chainID: chainID, head: head)
    }

    func newBlockFilter(chainID: UInt64) async throws -> String {
        try install(.blocks, chainID: chainID, head: try await chain(chainID).headNumber)
    }

    private func install(_ kind: RPCFilters.Kind, chainID: UInt64, head: UInt64) throws -> String {
        guard let id = filters.install(chainID: chainID, kind: kind, head: head, nowMs: nowMs) else {
            throw RPCError(code: -32000, message: "too many filters (\(RPCFilters.maxFilters)); uninstall some")
        }
        return id
    }

    func filterChanges(_ params: [Any], chainID: UInt64) async throws -> [Any] {
        let (id, filter) = try self.filter(params, chainID: chainID)
        let head = try await chain(chainID).headNumber
        defer { filters.polled(id, head: head, nowMs: nowMs) }
        guard head > filter.lastBlock else { return [] }
        switch filter.kind {
        case .blocks:
            let from = filter.lastBlock + 1
            let hashes = try await context.database.read { connection -> [String] in
                try (from...head).compactMap { try LocalChainStore.block(chainID: chainID, number: $0, on: connection)?.hash }
            }
            return hashes
        case .logs(let from, let to, let addresses, let topics):
            let start = max(filter.lastBlock + 1, from ?? 0)
            let end = min(head, to ?? head)
            guard start <= end else { return [] }
            return try await logs(LogFilter(fromBlock: start, toBlock: end, addresses: addresses, topics: topics), chainID: chainID)
        }
    }

    func filterLogs(_ params: [Any], chainID: UInt64) async throws -> [Any] {
        let (_, filter) = try self.filter(params, chainID: chainID)
        guard case .logs(let from, let to, let addresses, let topics) = filter.kind else {
            throw RPCError.invalidParams("eth_getFilterLogs takes a log filter, not a block filter")
        }
        let head = try await chain(chainID).headNumber
        let end = min(head, to ?? head)
        guard (from ?? head) <= end else { return [] }
        return try await logs(LogFilter(fromBlock: from ?? head, toBlock: end, addresses: addresses, topics: topics), chainID: chainID)
    }

    func uninstallFilter(_ params: [Any], chainID: UInt64) throws -> Bool {
        guard let id = params.first as? String else { throw RPCError.invalidParams("parameter 0 must be a filter id") }
        return filters.uninstall(id, chainID: chainID)
    }

    private func filter(_ params: [Any], chainID: UInt64) throws -> (String, RPCFilters.Filter) {
        guard let id = params.first as? String else { throw RPCError.invalidParams("parameter 0 must be a filter id") }
        // geth's words.
        guard let filter = filters.filter(id, chainID: chainID, nowMs: nowMs) else { throw RPCError(code: -32000, message: "filter not found") }
        return (id.lowercased(), filter)
    }
}
