import Foundation
import HubKernel
import HubLocalChain
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubEVM

/// A hub with the local chain and the EVM rail on its default chain (a chain of this hub).
func withEVMHub(
    on backend: TestBackend,
    realIdentity: Bool = false,
    evmConfig: String = "{}",
    _ body: @Sendable (Hub, any TestClientProtocol) async throws -> Void
) async throws {
    let keyFile = localChainKeyFile()
    defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
    try await withTestHub(
        on: backend,
        builtIn: [LocalChainPlugin.self, EVMPlugin.self],
        plugins: [
            localChainEntry(keyFile: keyFile, sealTickMs: 50),
            PluginsFile.Entry(id: "evm", enabled: true, configJSON: evmConfig, place: "plugins[1]"),
        ],
        realIdentity: realIdentity,
        body
    )
}

extension TestClientProtocol {
    func evm(_ method: HTTPRequest.Method, _ path: String, as user: String?, _ body: Any? = nil) async throws -> TestResponse {
        var headers: HTTPFields = user.map { bearer($0) } ?? [:]
        if body != nil { headers = headers + jsonHeaders }
        return try await execute(uri: "/v1/rails/evm" + path, method: method, headers: headers, body: body.map(jsonBody))
    }

    /// Waits (up to 20 s) until every chain of the rail is ready.
    func waitEVMChainsReady() async throws {
        for _ in 0..<200 {
            let chains = try await evm(.get, "/chains", as: "someone").object["data"] as? [[String: Any]] ?? []
            if !chains.isEmpty, chains.allSatisfy({ $0["status"] as? String == "ready" }) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the EVM rail's chains did not become ready")
    }
}

func count(_ type: String, in hub: Hub) async throws -> Int64 {
    try await hub.database.read { connection in
        try connection.queryFirst("SELECT count(*) AS n FROM hub_events WHERE type = \(type)")?.int("n") ?? 0
    }
}

/// Every suite that runs hubs with the EVM rail, one test at a time: each hub runs a chain with its
/// sealer and the rail's tracker, and many at once on one test PostgreSQL starve the rest of the
/// suite running beside them.
@Suite("EVM rail", .serialized)
enum EVMRailTests {}
