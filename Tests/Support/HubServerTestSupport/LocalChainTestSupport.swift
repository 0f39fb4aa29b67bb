public import ChainKit
import Foundation
public import HubKernel
package import HubLocalChain
public import HubServer
public import HubTestSupport
import Hummingbird
public import HummingbirdTesting
import Logging
import Testing

/// A key file of its own per test (the KEK is created at first use, mode 0600).
public func localChainKeyFile() -> String {
    NSTemporaryDirectory() + "hubd-localchain-test-\(UUID().uuidString)/kek.key"
}

/// The rail's `plugins.json` entry: its own key file, a fast sealer.
public func localChainEntry(keyFile: String, sealTickMs: Int = 20) -> PluginsFile.Entry {
    PluginsFile.Entry(
        id: "localchain",
        enabled: true,
        configJSON: #"{"key_file": "\#(keyFile)", "seal_tick_ms": \#(sealTickMs)}"#,
        place: "plugins[0]"
    )
}

/// A hub process with the local chain rail on `database`, not yet migrated or prepared: for tests
/// that run several processes on one database, one after another or side by side.
public func localChainHub(database: Database, keyFile: String, sealTickMs: Int) throws -> Hub {
    try HubAssembly.make(
        database: database,
        pluginsFile: PluginsFile(entries: [localChainEntry(keyFile: keyFile, sealTickMs: sealTickMs)], path: "test-plugins.json"),
        secretsKeyFile: testSecretsKeyFile(for: database.url),
        builtIn: [LocalChainPlugin.self],
        identityConfiguration: testIdentityConfiguration,
        logger: Logger(label: "test"),
        authenticator: TestAuthenticator()
    )
}

/// A hub with the local chain rail, its sealer ticking every 20 ms.
public func withLocalChainHub(
    on backend: TestBackend,
    testing: TestingSetup = .router,
    _ body: @Sendable (Hub, LocalChainAPI) async throws -> Void
) async throws {
    let keyFile = localChainKeyFile()
    defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
    try await withTestHub(
        on: backend,
        builtIn: [LocalChainPlugin.self],
        plugins: [localChainEntry(keyFile: keyFile)],
        testing: testing
    ) { hub, client in
        try await body(hub, LocalChainAPI(client: client, database: hub.database))
    }
}

/// Test keys (fixed, so failures reproduce).
public enum TestKeys {
    public static let alice = [UInt8](repeating: 0xA1, count: 32)
    public static let bob = [UInt8](repeating: 0xB0, count: 32)
    public static func address(_ key: [UInt8]) -> EthereumAddress {
        try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: key))
    }
}

/// Calls of the rail's API as the tests use them.
public struct LocalChainAPI: Sendable {
    public let client: any TestClientProtocol
    public let database: Database

    public init(client: any TestClientProtocol, database: Database) {
        self.client = client
        self.database = database
    }

    public func createChain(
        _ chainID: UInt64,
        as user: String = "org-1",
        role: String = "organiser",
        intervalMs: Int = 100,
        extra: [String: Any] = [:]
    ) async throws -> TestResponse {
        var body: [String: Any] = [
            "chain_id": chainID, "name": "Summer Fest", "currency_name": "Fest Token", "symbol": "FEST", "decimals": 2,
            "block_interval_ms": intervalMs,
        ]
        for (key, value) in extra { body[key] = value }
        return try await client.execute(
            uri: "/v1/rails/localchain/chains",
            method: .post,
            headers: bearer(user, role) + jsonHeaders,
            body: jsonBody(body)
        )
    }

    public func grant(_ chainID: UInt64, to: EthereumAddress, amount: String, as user: String = "org-1") async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/rails/localchain/chains/\(chainID)/grants",
            method: .post,
            headers: bearer(user, "organiser") + jsonHeaders,
            body: jsonBody(["to": to.checksummed, "amount": amount])
        )
    }

    public func send(_ chainID: UInt64, raw: [UInt8]) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/rails/localchain/chains/\(chainID)/transactions",
            method: .post,
            headers: jsonHeaders,
            body: jsonBody(["raw": Hex.encode(raw)])
        )
    }

    package func account(_ chainID: UInt64, _ address: EthereumAddress) async throws -> ChainAccount? {
        try await database.read { try LocalChainStore.account(chainID: chainID, address: address, on: $0) }
    }

    public func head(_ chainID: UInt64) async throws -> UInt64 {
        try await database.read { try LocalChainStore.chain(chainID, on: $0)?.headNumber ?? 0 }
    }

    public func poolCount(_ chainID: UInt64) async throws -> Int {
        try await database.read { try LocalChainStore.poolCount(chainID: chainID, on: $0) }
    }

    public func eventCount() async throws -> Int64 {
        try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM hub_events")?.int("n") ?? 0 }
    }

    /// Posts `body` (a JSON-RPC request or batch) to the chain's JSON-RPC endpoint.
    public func rpc(_ chainID: UInt64, _ body: Any) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/rails/localchain/chains/\(chainID)/rpc",
            method: .post,
            headers: jsonHeaders,
            body: jsonBody(body)
        )
    }

    /// Calls `method` over JSON-RPC and returns the response object (`result` or `error`).
    public func call(_ chainID: UInt64, _ method: String, _ params: [Any] = []) async throws -> [String: Any] {
        try (try await rpc(chainID, ["jsonrpc": "2.0", "id": 7, "method": method, "params": params])).json()
    }

    /// Waits until every pending transaction of the chain is sealed.
    public func waitSealed(_ chainID: UInt64) async throws {
        try await eventually("the pool of chain \(chainID) to empty", timeout: .seconds(20)) { try await poolCount(chainID) == 0 }
    }
}

/// A plain value transfer signed with `key`.
public func signedTransfer(
    _ key: [UInt8],
    chainID: UInt64,
    nonce: UInt64,
    to: EthereumAddress,
    value: UInt64,
    envelope: EthereumTransaction.Envelope = .legacy
) throws -> SignedEthereumTransaction {
    try EthereumTransaction(envelope: envelope, chainID: chainID, nonce: nonce, gasLimit: 21_000, to: to, value: UInt256(value))
        .signed(privateKey: key)
}

/// The burn sender's authorisation of a cash-out's payout account, as a wallet signs it.
public func cashOutSignature(_ key: [UInt8], _ chainID: UInt64, _ burn: SignedEthereumTransaction, _ payout: AccountID) throws -> String {
    let text = CashOutAuthorisation.message(chainID: chainID, transactionHash: Hex.encode(Keccak256.hash(burn.raw)), payout: payout)
    return Hex.encode(try PersonalSign.sign(Array(text.utf8), privateKey: key))
}
