import ChainKit
import HubKernel
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// Serves this hub's chains to relays over WebSocket (`sync_listen`), LokaalPay's ripple over IP.
///
/// `GET ws://HOST:PORT/chains/{id}/sync?from=N` upgrades, then the server sends every stored
/// block from number N in order, one binary message each (the block's RLP, uncompressed so that
/// any client can check it), and keeps sending new blocks as they are stored, relayed ones
/// included: a relay serves its own relays (host ← relay ← relay). The relay verifies each one;
/// nothing sent here is trusted. Its own listener, not the API's: the hub's HTTP server has no
/// WebSocket upgrade, and sync traffic should not share the API's limits.
struct SyncServer: Service {
    let context: PluginContext
    let host: String
    let port: Int
    /// How often a live connection looks for new blocks.
    var poll: Duration = .milliseconds(50)

    static let maxFrame = 16 << 20

    func run() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let (database, poll, logger) = (context.database, poll, context.logger)
        router.ws("chains/{id}/sync") { request, _ in
            Self.chainID(request.uri.path) == nil ? .dontUpgrade : .upgrade([:])
        } onUpgrade: { inbound, outbound, wsContext in
            guard let chainID = Self.chainID(wsContext.request.uri.path) else { return }
            let from = wsContext.request.uri.queryParameters["from"].flatMap { UInt64(String($0)) } ?? 0
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The relay sends nothing; its closing the connection ends the stream.
                group.addTask { for try await _ in inbound {} }
                group.addTask {
                    var next = from
                    while !Task.isCancelled {
                        let start = next
                        let blocks = try await database.read { try LocalChainStore.blocks(chainID: chainID, from: start, limit: 64, on: $0) }
                        for block in blocks {
                            try await outbound.write(.binary(ByteBuffer(bytes: try Zstd.decompress(block.data))))
                            next = block.number + 1
                        }
                        if blocks.isEmpty { try await Task.sleep(for: poll) }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
            logger.debug("a relay left", metadata: ["localchain.chain": "\(chainID)"])
        }
        let app = Application(
            router: Router(context: BasicWebSocketRequestContext.self),
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: Self.maxFrame))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "hubd-localchain-sync"),
            logger: logger
        )
        try await app.run()
    }

    /// The chain id of `/chains/{id}/sync`.
    static func chainID(_ path: String) -> UInt64? {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "chains", parts[2] == "sync" else { return nil }
        return UInt64(parts[1])
    }
}

extension LocalChainStore {
    /// Blocks numbered `from` and up, oldest first.
    static func blocks(chainID: UInt64, from: UInt64, limit: Int, on connection: any SQLConnection) throws -> [StoredBlock] {
        try connection.query(
            selectBlocks + " WHERE chain_id = \(Int64(clamping: chainID)) AND number >= \(Int64(clamping: from)) ORDER BY number LIMIT \(limit)"
        ).map(block)
    }
}
