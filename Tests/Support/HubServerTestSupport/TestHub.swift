import Foundation
public import HubKernel
public import HubServer
public import HubTestSupport
public import Hummingbird
public import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing

/// TEST DOUBLE for the identity services in tests of other endpoints: the bearer credential
/// `test|<user id>|<role>[,<role>][|<scope>,<scope>]` is that user with those roles (and, with
/// the fourth part, an API key's scopes). The identity endpoints are tested with real tokens.
public struct TestAuthenticator: Authenticator {
    public init() {}

    public func authenticate(bearer credential: String) async throws -> Principal {
        let parts = credential.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "test" else {
            throw Problem(.unauthorized, code: "invalid_token", detail: "Not a test credential.")
        }
        let roles = Set(parts[2].split(separator: ",").compactMap { Role(rawValue: String($0)) })
        let scopes = parts.count > 3 ? Set(try parts[3].split(separator: ",").map { try APIScope(validating: String($0)) }) : nil
        return Principal(userID: testUserID(parts[1]), roles: roles, credential: .accessToken(tokenID: "test"), scopes: scopes)
    }
}

/// The user id a test name stands for (stable: derived from the name).
public func testUserID(_ name: String) -> UserID {
    // FNV-1a over the name (Hasher is seeded per process, so it would not be stable).
    var value: UInt128 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 { value = (value ^ UInt128(byte)) &* 0x0000_0000_0100_0000_0000_0000_0000_013B }
    value = (value & ~(UInt128(0xF000) << 64)) | (UInt128(0x8000) << 64)
    value = (value & ~(UInt128(0xC000) << 48)) | (UInt128(0x8000) << 48)
    return UserID(rawValue: value)
}

/// `testUserID(name)` as the API writes it.
public func uid(_ name: String) -> String { testUserID(name).description }

/// The `Authorization` header of a test caller.
public func bearer(_ user: String, _ roles: String = "member", scopes: String? = nil) -> HTTPFields {
    [.authorization: "Bearer test|\(user)|\(roles)" + (scopes.map { "|\($0)" } ?? "")]
}

/// Password hashing at libsodium's minimum cost: the tests check behaviour, not hardness.
public var testIdentityConfiguration: IdentityConfiguration {
    var configuration = IdentityConfiguration()
    configuration.passwordParameters = .minimum
    return configuration
}

/// A migrated hub on `backend` with its services running, and a client for its router.
public func withTestHub(
    on backend: TestBackend,
    builtIn: [any RailPlugin.Type] = [],
    plugins: [PluginsFile.Entry] = [],
    clock: LedgerClock = .system,
    realIdentity: Bool = false,
    devLogin: Bool = false,
    webhooks: WebhookConfiguration = .forTestReceivers,
    testing: TestingSetup = .router,
    _ body: @Sendable (Hub, any TestClientProtocol) async throws -> Void
) async throws {
    let keyFolder = testSecretsKeyFolder()
    defer { try? FileManager.default.removeItem(atPath: keyFolder) }
    try await withDatabase(on: backend) { database in
        try await withTestHub(
            database: database,
            builtIn: builtIn,
            plugins: plugins,
            clock: clock,
            realIdentity: realIdentity,
            devLogin: devLogin,
            webhooks: webhooks,
            testing: testing,
            secretsKeyFile: keyFolder + "/secrets.key",
            body
        )
    }
}

/// A hub on an existing `database` (migrated if it is not yet): for tests that stop a hub and
/// start another on the same data, as a restart would.
@discardableResult
public func withTestHub<Value: Sendable>(
    database: Database,
    builtIn: [any RailPlugin.Type] = [],
    plugins: [PluginsFile.Entry] = [],
    clock: LedgerClock = .system,
    realIdentity: Bool = false,
    devLogin: Bool = false,
    webhooks: WebhookConfiguration = .forTestReceivers,
    testing: TestingSetup = .router,
    secretsKeyFile: String? = nil,
    _ body: @Sendable (Hub, any TestClientProtocol) async throws -> Value
) async throws -> Value {
    var ledgerConfiguration = LedgerConfiguration()
    ledgerConfiguration.expiryInterval = .seconds(3600)
    let hub = try HubAssembly.make(
        database: database,
        pluginsFile: PluginsFile(entries: plugins, path: "test-plugins.json"),
        secretsKeyFile: secretsKeyFile ?? testSecretsKeyFile(for: database.url),
        builtIn: builtIn,
        ledgerConfiguration: ledgerConfiguration,
        identityConfiguration: testIdentityConfiguration,
        webhookConfiguration: webhooks,
        devLogin: devLogin,
        clock: clock,
        logger: Logger(label: "test"),
        authenticator: realIdentity ? nil : TestAuthenticator()
    )
    try await HubAssembly.migrator(for: hub).migrate(database)
    try await hub.prepare()
    let router = buildRouter(hub: hub)
    let app = Application(router: router, server: buildServer(router: router), services: hub.services)
    return try await app.test(testing) { client in
        try await body(hub, client)
    }
}

extension TestResponse {
    /// The body as a JSON object.
    public func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
    }

    /// The body as text.
    public var text: String { String(buffer: body) }

    /// The body as a JSON object, empty when it is not one (for use inside `#expect`).
    public var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]) ?? [:]
    }
}

/// A JSON request body.
public func jsonBody(_ object: Any) -> ByteBuffer {
    ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: object))
}

/// `Content-Type: application/json`.
public let jsonHeaders: HTTPFields = [.contentType: "application/json"]

/// Both header lists, `lhs` first.
public func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
    var out = lhs
    out.append(contentsOf: rhs)
    return out
}
