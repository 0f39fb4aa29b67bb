import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubSubstrate

/// A hub running the Substrate rail with real identity (wallet sign-in issues real tokens).
func withSubstrateHub(
    on backend: TestBackend,
    config: String = "{}",
    clock: LedgerClock = .system,
    _ body: @Sendable (Hub, any TestClientProtocol) async throws -> Void
) async throws {
    try await withTestHub(
        on: backend,
        builtIn: [SubstratePlugin.self],
        plugins: [PluginsFile.Entry(id: "substrate", enabled: true, configJSON: config, place: "plugins[0]")],
        clock: clock,
        realIdentity: true,
        body
    )
}

/// A Substrate key made in the test with ChainKit, as a wallet holds it.
struct TestKey: Sendable {
    let algorithm: SubstrateSignatureVerifier.Algorithm
    let publicKey: [UInt8]
    private let sr25519: Sr25519.KeyPair?
    private let ed25519: Ed25519.KeyPair?

    init(_ algorithm: SubstrateSignatureVerifier.Algorithm = .sr25519, seed: UInt8) {
        self.algorithm = algorithm
        let secret = [UInt8](repeating: seed, count: 32)
        switch algorithm {
        case .sr25519:
            let pair = try! Sr25519.keyPair(miniSecret: secret)
            (sr25519, ed25519, publicKey) = (pair, nil, pair.publicKey)
        case .ed25519:
            let pair = try! Ed25519.keyPair(seed: secret)
            (sr25519, ed25519, publicKey) = (nil, pair, pair.publicKey)
        }
    }

    /// The key of a mnemonic, as Substrate wallets derive it (no password, no path).
    init(mnemonic: String) throws {
        let pair = try Sr25519.keyPair(miniSecret: BIP39.substrateMiniSecret(mnemonic: mnemonic))
        (algorithm, sr25519, ed25519, publicKey) = (.sr25519, pair, nil, pair.publicKey)
    }

    var scheme: String { algorithm.rawValue }
    func address(prefix: UInt16 = 42) -> String { try! SS58.encode(publicKey, prefix: prefix) }

    /// An sr25519 signature over `bytes` as they are (an extrinsic's signing message), in hex.
    func sign(bytes: [UInt8]) -> String {
        "0x" + HexText.encode(try! Sr25519.sign(bytes, keyPair: sr25519!))
    }

    /// A signature over `text`, wrapped in `<Bytes>…</Bytes>` as polkadot.js extensions sign when asked.
    func sign(_ text: String, wrapped: Bool = false) -> String {
        let message = wrapped ? Array("<Bytes>\(text)</Bytes>".utf8) : Array(text.utf8)
        let signature =
            switch algorithm {
            case .sr25519: try! Sr25519.sign(message, keyPair: sr25519!)
            case .ed25519: Ed25519.sign(message, keyPair: ed25519!)
            }
        return "0x" + HexText.encode(signature)
    }
}

extension TestClientProtocol {
    /// `POST /v1/auth/wallet/challenge`: the response (201 with nonce and message when accepted).
    func challenge(_ key: TestKey, address: String? = nil) async throws -> TestResponse {
        try await execute(
            uri: "/v1/auth/wallet/challenge",
            method: .post,
            headers: jsonHeaders,
            body: jsonBody(["scheme": key.scheme, "address": address ?? key.address(prefix: 0)])
        )
    }

    /// A challenge's nonce and message, expecting it issued.
    func openChallenge(_ key: TestKey) async throws -> (nonce: String, message: String) {
        let response = try await challenge(key)
        #expect(response.status == .created, "\(response.text)")
        return (try #require(response.object["nonce"] as? String), try #require(response.object["message"] as? String))
    }

    func walletLogin(nonce: String, signature: String) async throws -> TestResponse {
        try await execute(
            uri: "/v1/auth/wallet/login",
            method: .post,
            headers: jsonHeaders,
            body: jsonBody(["nonce": nonce, "signature": signature])
        )
    }

    /// Signs in with `key` (creating its user on first use) and answers the access token.
    func signIn(_ key: TestKey) async throws -> String {
        let (nonce, message) = try await openChallenge(key)
        let response = try await walletLogin(nonce: nonce, signature: key.sign(message))
        #expect(response.status == .created || response.status == .ok, "\(response.text)")
        return try #require(response.object["access_token"] as? String)
    }

    func substrate(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String,
        _ body: Any? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if body != nil { headers = headers + jsonHeaders }
        return try await execute(uri: "/v1/rails/substrate" + path, method: method, headers: headers + extra, body: body.map(jsonBody))
    }

    /// Registers `key` as an external wallet of the caller: a fresh challenge, signed.
    func registerExternal(_ key: TestKey, token: String, wrapped: Bool = false) async throws -> TestResponse {
        let (nonce, message) = try await openChallenge(key)
        return try await substrate(
            .post,
            "/wallets",
            token: token,
            ["kind": "external", "address": key.address(), "nonce": nonce, "signature": key.sign(message, wrapped: wrapped)]
        )
    }
}

func count(_ sql: SQL, in hub: Hub) async throws -> Int64 {
    try await hub.database.read { connection in try connection.queryFirst(sql)?.int("n") ?? 0 }
}

func events(_ type: String, in hub: Hub) async throws -> Int64 {
    try await count("SELECT count(*) AS n FROM hub_events WHERE type = \(type)", in: hub)
}

/// Every suite of the rail, one test at a time (each runs a hub).
@Suite("Substrate rail", .serialized)
enum SubstrateRailTests {}
