import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import Testing

@testable import HubLocalChain

/// `eth_subscribe` over a WebSocket on the hub's own port (`GET …/chains/{id}/rpc` upgraded), with
/// a real WebSocket client: notifications match `eth_getBlockByNumber` and `eth_getLogs`, the
/// POST endpoint's methods answer on the socket too, and every limit ends with a clear error.
/// web3.py's WebSocket provider drives it live in CI (`scripts/localchain-web3-test.sh`).
@Suite("local chain JSON-RPC over WebSocket", .timeLimit(.minutes(3)))
struct LocalChainWebSocketTests {
    static let storerTopic = Hex.encode([UInt8](repeating: 0, count: 31) + [0x2a])

    /// Calls the storer contract (it stores `value` and logs topic 0x2a), signed by Alice.
    static func storeCall(_ chainID: UInt64, nonce: UInt64, to: EthereumAddress?, value: UInt8) throws -> String {
        let data = to == nil ? ContractExecutionTests.initcode(ContractExecutionTests.storerRuntime) : [UInt8](repeating: 0, count: 31) + [value]
        let transaction = EthereumTransaction(
            envelope: .dynamicFee,
            chainID: chainID,
            nonce: nonce,
            gasLimit: 200_000,
            to: to,
            value: .zero,
            data: data
        )
        return Hex.encode(try transaction.signed(privateKey: TestKeys.alice).raw)
    }

    @Test(
        "newHeads and logs: notifications as eth_getBlockByNumber and eth_getLogs shape them; unsubscribe stops them",
        arguments: TestBackend.enabled
    )
    func subscriptions(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend, testing: .live) { _, api in
            let chainID: UInt64 = 5_300
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let storer = ValidatedTransaction.contractAddress(sender: alice, nonce: 0)
            #expect(
                try await api.call(chainID, "eth_sendRawTransaction", [try Self.storeCall(chainID, nonce: 0, to: nil, value: 0)])["result"] != nil
            )
            try await api.waitSealed(chainID)

            try await withSocket(api, chainID) { socket in
                // The POST endpoint's methods answer on the socket too.
                #expect(try await socket.call("eth_chainId")["result"] as? String == RPCFormat.quantity(chainID))
                let heads = try #require(try await socket.call("eth_subscribe", ["newHeads"])["result"] as? String)
                let logs = try #require(
                    try await socket.call("eth_subscribe", ["logs", ["address": storer.checksummed, "topics": [Self.storerTopic]]])["result"]
                        as? String
                )
                let none = try #require(try await socket.call("eth_subscribe", ["logs", ["address": alice.checksummed]])["result"] as? String)
                #expect(heads.hasPrefix("0x") && heads.count == 34 && Set([heads, logs, none]).count == 3)

                let hash = try #require(
                    try await socket.call("eth_sendRawTransaction", [try Self.storeCall(chainID, nonce: 1, to: storer, value: 7)])["result"]
                        as? String
                )
                let log = try await socket.result(of: logs)
                #expect(log["transactionHash"] as? String == hash)
                #expect(log["removed"] as? Bool == false)
                let number = try #require(log["blockNumber"] as? String)
                let header = try await socket.result(of: heads) { $0["number"] as? String == number }

                var block = try #require(try await socket.call("eth_getBlockByNumber", [number, false])["result"] as? [String: Any])
                #expect((block["transactions"] as? [String]) == [hash])
                block["transactions"] = nil
                block["uncles"] = nil
                #expect(try Self.canonical(header) == (try Self.canonical(block)))
                let found = try #require(
                    try await socket.call("eth_getLogs", [["fromBlock": number, "toBlock": number, "address": storer.checksummed]])["result"]
                        as? [[String: Any]]
                )
                #expect(found.count == 1)
                #expect(try Self.canonical(found.first ?? [:]) == (try Self.canonical(log)))

                #expect(try await socket.call("eth_unsubscribe", [heads])["result"] as? Bool == true)
                #expect(try await socket.call("eth_unsubscribe", [heads])["result"] as? Bool == false)
                #expect(try await socket.call("eth_unsubscribe", [none])["result"] as? Bool == true)
                socket.notifications.removeAll()
                _ = try await socket.call("eth_sendRawTransaction", [try Self.storeCall(chainID, nonce: 2, to: storer, value: 8)])
                let next = try await socket.result(of: logs)
                #expect(RPCFormat.parseQuantity(next["blockNumber"] as? String ?? "") ?? 0 > RPCFormat.parseQuantity(number) ?? 0)
                // A block's notifications are queued together: a call answered after them flushes any left.
                _ = try await socket.call("eth_blockNumber")
                #expect(!socket.notifications.contains { [heads, none].contains(Self.subscription(of: $0)) })
                #expect(!socket.seen.contains { Self.subscription(of: $0) == none })
            }
        }
    }

    @Test("bad requests: JSON-RPC errors on the socket, a plain GET, an unknown chain, over POST", arguments: TestBackend.enabled)
    func badRequests(backend: TestBackend) async throws {
        try await withLimitedHub(on: backend) { api in
            let chainID: UInt64 = 5_301
            #expect(try await api.createChain(chainID).status == .created)
            let path = "/v1/rails/localchain/chains/\(chainID)/rpc"
            let plain = try await api.client.execute(uri: path, method: .get)
            #expect(plain.status == .upgradeRequired)
            #expect(plain.object["code"] as? String == "websocket_upgrade_required")
            #expect((try await api.call(chainID, "eth_subscribe", ["newHeads"])["error"] as? [String: Any])?["code"] as? Int == -32601)
            let port = try #require(api.client.port)
            await #expect(throws: (any Error).self) {
                try await WebSocketClient.connect(url: "ws://localhost:\(port)/v1/rails/localchain/chains/9999/rpc", logger: Logger(label: "test")) {
                    _,
                    _,
                    _ in
                }
            }

            try await withSocket(api, chainID) { socket in
                func code(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }
                #expect(code(try await socket.call("eth_subscribe", ["newPendingTransactions"])) == -32602)
                #expect(code(try await socket.call("eth_subscribe", [])) == -32602)
                #expect(code(try await socket.call("eth_subscribe", ["logs", ["topics": [["0x01"]]]])) == -32602)
                #expect(code(try await socket.call("eth_subscribe", ["logs", ["fromBlock": "0x0"]])) == -32602)
                #expect(code(try await socket.call("eth_subscribe", ["logs", "0xabc"])) == -32602)
                #expect(code(try await socket.call("eth_subscribe", ["newHeads", ["address": "0x01"]])) == -32602)
                #expect(code(try await socket.call("eth_unsubscribe", [])) == -32602)
                #expect(code(try await socket.call("eth_nonsense")) == -32601)
                try await socket.send("not json")
                #expect(code(try #require(try await socket.receive() as? [String: Any])) == -32700)

                // Two subscriptions per socket here: a third is refused until one goes.
                let batch =
                    #"[{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]"#
                try await socket.send(batch)
                let answers = try #require(try await socket.receive() as? [[String: Any]])
                #expect(answers.count == 2)
                let first = try #require(answers.first?["result"] as? String)
                #expect(try await socket.call("eth_subscribe", ["logs"])["result"] is String)
                let refused = try #require(try await socket.call("eth_subscribe", ["newHeads"])["error"] as? [String: Any])
                #expect(refused["code"] as? Int == -32005)
                #expect((refused["message"] as? String)?.contains("too many subscriptions") == true)
                #expect(try await socket.call("eth_unsubscribe", [first])["result"] as? Bool == true)
                #expect(try await socket.call("eth_subscribe", ["newHeads"])["result"] is String)

                // One connection at a time here: another is closed at once, saying why.
                let close = try await WebSocketClient.connect(url: "ws://localhost:\(port)\(path)", logger: Logger(label: "test")) { inbound, _, _ in
                    for try await _ in inbound {}
                }
                #expect(close?.closeCode == .unknown(1013))
                #expect(close?.reason?.contains("too many WebSocket connections") == true)
            }
            // The closed socket gives its place back (its handler ends just after the close).
            try await eventually("a new connection once the first closed", timeout: .seconds(10)) {
                try await Self.chainIDOverSocket(port: port, path: path) == RPCFormat.quantity(chainID)
            }
        }
    }

    @Test("a WebSocket from an origin the chain does not allow is refused; a chain that allows it upgrades")
    func origins() async throws {
        // The client sends `Origin: ws://localhost` as a browser would send its page's origin.
        try await withLimitedHub(on: .sqlite, origins: #"{"*": ["https://fest.example"], "5303": ["*"]}"#) { api in
            #expect(try await api.createChain(5_302).status == .created)
            #expect(try await api.createChain(5_303).status == .created)
            let port = try #require(api.client.port)
            await #expect(throws: (any Error).self) {
                try await WebSocketClient.connect(url: "ws://localhost:\(port)/v1/rails/localchain/chains/5302/rpc", logger: Logger(label: "test")) {
                    _,
                    _,
                    _ in
                }
            }
            #expect(try await Self.chainIDOverSocket(port: port, path: "/v1/rails/localchain/chains/5303/rpc") == RPCFormat.quantity(UInt64(5_303)))
        }
    }

    @Test("blocks sealed by another instance on the same database reach this one's subscribers", arguments: TestBackend.enabled)
    func otherInstance(backend: TestBackend) async throws {
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        let chainID: UInt64 = 5_302
        try await withDatabase(on: backend) { database in
            // The sealer: started first, it holds the sealer lease throughout.
            let sealing = try localChainHub(database: database, keyFile: keyFile, sealTickMs: 20)
            try await HubAssembly.migrator(for: sealing).migrate(database)
            try await sealing.prepare()
            try await Application(router: buildRouter(hub: sealing), services: sealing.services).test(.router) {
                (sealingClient: any TestClientProtocol) async throws in
                let sealingAPI = LocalChainAPI(client: sealingClient, database: database)
                #expect(try await sealingAPI.createChain(chainID).status == .created)
                // The subscribers' instance: its own sealer would wait 10 s, longer than the test.
                let serving = try localChainHub(database: database, keyFile: keyFile, sealTickMs: 10_000)
                try await serving.prepare()
                let router = buildRouter(hub: serving)
                try await Application(router: router, server: buildServer(router: router), services: serving.services).test(.live) {
                    (client: any TestClientProtocol) async throws in
                    try await withSocket(LocalChainAPI(client: client, database: database), chainID) { socket in
                        let heads = try #require(try await socket.call("eth_subscribe", ["newHeads"])["result"] as? String)
                        let grant = try await sealingAPI.grant(chainID, to: TestKeys.address(TestKeys.bob), amount: "5")
                        #expect(grant.status == .accepted)
                        let header = try await socket.result(of: heads)
                        #expect(header["number"] as? String == "0x1")
                        #expect(header["miner"] is String)
                    }
                }
            }
        }
    }

    @Test("a slow reader: the outbox is bounded and overflows into a close; notifications never precede their subscription's id")
    func slowReaderAndOrder() async throws {
        let socket = RPCSocket(limits: .init(subscriptions: 10, pending: 3))
        let id = try #require(socket.subscribe(.newHeads, after: 4))
        // A block sealed before the answer naming the subscription is queued waits for it.
        socket.receive(SealedBlockNotice(number: 5, header: Array(#"{"number":"0x5"}"#.utf8), logs: []))
        // Blocks at or before the head when it subscribed are not its to hear of.
        socket.receive(SealedBlockNotice(number: 4, header: Array(#"{"number":"0x4"}"#.utf8), logs: []))
        socket.answered(Array(#"{"jsonrpc":"2.0","id":1,"result":"\#(id)"}"#.utf8))
        for number in 6...9 { socket.receive(SealedBlockNotice(number: UInt64(number), header: Array("{}".utf8), logs: [])) }
        #expect(socket.overflowed)
        #expect(socket.count == 0)
        var queued: [String] = []
        for await message in socket.outbox { queued.append(String(decoding: message, as: UTF8.self)) }
        #expect(queued.count == 3)
        #expect(queued.first?.contains(#""result":"\#(id)""#) == true)
        #expect(
            queued.dropFirst().first == #"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"\#(id)","result":{"number":"0x5"}}}"#
        )
    }

    // MARK: Helpers

    /// `eth_chainId` on a new connection, or `nil` when the server closed it first.
    static func chainIDOverSocket(port: Int, path: String) async throws -> String? {
        final class Answer: Sendable { let text = Mutex<String?>(nil) }
        let answer = Answer()
        _ = try? await WebSocketClient.connect(url: "ws://localhost:\(port)\(path)", logger: Logger(label: "test")) { inbound, outbound, _ in
            try await outbound.write(.text(#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}"#))
            for try await message in inbound.messages(maxSize: 1 << 16) {
                if case .text(let text) = message { answer.text.withLock { $0 = text } }
                break
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        guard let text = answer.text.withLock({ $0 }) else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["result"] as? String
    }

    /// A JSON object as text with sorted keys, so two decoded answers compare by their JSON
    /// (`NSDictionary` equality on Linux tells a decoded `false` from a Swift `false`).
    static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func subscription(of notification: [String: Any]) -> String? {
        (notification["params"] as? [String: Any])?["subscription"] as? String
    }

    /// A hub whose WebSocket allows one connection of two subscriptions.
    func withLimitedHub(
        on backend: TestBackend,
        origins: String = #"{"*": ["*"]}"#,
        _ body: @Sendable (LocalChainAPI) async throws -> Void
    ) async throws {
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        let config = #"""
            {"key_file": "\#(keyFile)", "seal_tick_ms": 20, "rpc_ws_max_connections": 1, "rpc_ws_max_subscriptions": 2,
             "rpc_allowed_origins": \#(origins)}
            """#
        try await withTestHub(
            on: backend,
            builtIn: [LocalChainPlugin.self],
            plugins: [PluginsFile.Entry(id: "localchain", enabled: true, configJSON: config, place: "plugins[0]")],
            testing: .live
        ) { hub, client in
            try await body(LocalChainAPI(client: client, database: hub.database))
        }
    }

    /// Opens the chain's JSON-RPC WebSocket on the live test server and runs `body` on it.
    func withSocket(
        _ api: LocalChainAPI,
        _ chainID: UInt64,
        _ body: @escaping @Sendable (inout SocketClient) async throws -> Void
    ) async throws {
        let port = try #require(api.client.port)
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        try await WebSocketClient.connect(
            url: "ws://localhost:\(port)/v1/rails/localchain/chains/\(chainID)/rpc",
            configuration: configuration,
            logger: Logger(label: "test")
        ) { inbound, outbound, _ in
            var socket = SocketClient(messages: inbound.messages(maxSize: 1 << 22).makeAsyncIterator(), outbound: outbound)
            try await body(&socket)
            try await outbound.close(.normalClosure, reason: nil)
        }
    }
}

/// The test's end of a JSON-RPC WebSocket: calls answered in order, notifications kept aside.
struct SocketClient {
    var messages: WebSocketInboundMessageStream.AsyncIterator
    let outbound: WebSocketOutboundWriter
    var nextID = 1
    /// Notifications read and not yet taken.
    var notifications: [[String: Any]] = []
    /// Every notification read.
    var seen: [[String: Any]] = []

    struct Closed: Error {}

    func send(_ text: String) async throws { try await outbound.write(.text(text)) }

    /// The next message, parsed.
    mutating func receive() async throws -> Any {
        guard let message = try await messages.next() else { throw Closed() }
        let bytes: [UInt8]
        switch message {
        case .text(let text): bytes = Array(text.utf8)
        case .binary(let buffer): bytes = Array(buffer.readableBytesView)
        }
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        if let notification = object as? [String: Any], notification["method"] as? String == "eth_subscription" {
            notifications.append(notification)
            seen.append(notification)
        }
        return object
    }

    /// Calls `method` and returns its answer; notifications read meanwhile are kept.
    mutating func call(_ method: String, _ params: [Any] = []) async throws -> [String: Any] {
        let id = nextID
        nextID += 1
        let request = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params])
        try await send(String(decoding: request, as: UTF8.self))
        while true {
            let object = try await receive()
            if let answer = object as? [String: Any], answer["method"] == nil {
                #expect(answer["id"] as? Int == id)
                return answer
            }
        }
    }

    /// The `result` of the first notification of `subscription` that `matches`, read on until it comes.
    mutating func result(of subscription: String, where matches: ([String: Any]) -> Bool = { _ in true }) async throws -> [String: Any] {
        while true {
            if let index = notifications.firstIndex(where: {
                guard let params = $0["params"] as? [String: Any], params["subscription"] as? String == subscription,
                    let result = params["result"] as? [String: Any]
                else { return false }
                return matches(result)
            }) {
                let params = notifications.remove(at: index)["params"] as? [String: Any]
                return params?["result"] as? [String: Any] ?? [:]
            }
            _ = try await receive()
        }
    }
}
