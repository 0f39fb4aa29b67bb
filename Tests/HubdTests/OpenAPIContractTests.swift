import Foundation
import HubBLESessions
import HubKernel
import HubLocalChain
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The OpenAPI document served at `/openapi.json` against the router `hubd serve` builds: every
/// registered route and method is documented, and every documented one is registered (DESIGN §3.6:
/// "every route is in it"), the built-in rails' routes included. Left out: the example rail of the
/// tests (`/v1/rails/tip-jar/…`), which is not part of hubd, and the admin console's HTML pages
/// and assets (`/admin…`), which are not API.
@Suite("OpenAPI document matches the router", .timeLimit(.minutes(3)))
struct OpenAPIContractTests {
    /// The example rail's routes: compiled into the tests only, so not in hubd's document.
    static let examplePrefix = "/v1/rails/\(TipJarPlugin.id)/"
    /// The admin console (HubConsole): pages and static files, not API operations.
    static let consolePrefix = "/admin"
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    @Test("every registered route+method is in the document's paths, and every documented one is registered")
    func routesMatchDocument() async throws {
        // Every built-in rail runs with its defaults, and the tip-jar example rail (in this test
        // target), whose routes are present to exclude.
        // (The local chain gets a key file of its own rather than one in the working folder.)
        let builtIn = BuiltInPlugins.all.map { plugin in
            switch plugin.id {
            case LocalChainPlugin.id: localChainEntry(keyFile: localChainKeyFile())
            // The Gotchu-compatible surface (off by default) is documented too: on here.
            case BLESessionsPlugin.id: bleEntry(#"{"default_asset": "EUR", "gotchu_compatible": true}"#)
            // So is the DataUnion one.
            case "substrate": PluginsFile.Entry(id: plugin.id, enabled: true, configJSON: #"{"dataunion_compatible": true}"#, place: "plugins[0]")
            default: PluginsFile.Entry(id: plugin.id, enabled: true)
            }
        }
        try await withTestHub(
            on: .sqlite,
            builtIn: BuiltInPlugins.all + [TipJarPlugin.self],
            plugins: builtIn + [tipJarEntry()],
            devLogin: true  // POST /v1/auth/dev-login exists only then, and it is documented
        ) { hub, client in
            let document = try await Self.servedDocument(client)
            let documented = try Self.operations(in: document)
            let routes = buildRouter(hub: hub).routes.map { "\($0.method.rawValue) \($0.path.description)" }
            let registered = Set(
                routes.filter {
                    let path = $0.split(separator: " ", maxSplits: 1)[1]
                    return !path.hasPrefix(Self.examplePrefix) && !path.hasPrefix(Self.consolePrefix)
                }
            )

            // The plugin's routes are seen (so the exclusion is exercised, not vacuous) and left out.
            #expect(routes.contains("POST /v1/rails/\(TipJarPlugin.id)/jars"), "routes: \(routes.sorted())")
            #expect(routes.contains("GET /admin/overview"), "routes: \(routes.sorted())")
            #expect(registered.count > 10, "the router should have the kernel's routes: \(registered.sorted())")

            let undocumented = registered.subtracting(documented).sorted()
            let unregistered = documented.subtracting(registered).sorted()
            #expect(
                undocumented.isEmpty,
                "registered in buildRouter(hub:) but missing from Sources/HubServer/Resources/openapi.json: \(undocumented.joined(separator: ", "))"
            )
            #expect(
                unregistered.isEmpty,
                "documented in Sources/HubServer/Resources/openapi.json but not registered: \(unregistered.joined(separator: ", "))"
            )
        }
    }

    @Test("operations follow the HTTP conventions: 401 documented, POSTs take Idempotency-Key, bodies may be 413/415")
    func conventions() async throws {
        try await withTestHub(on: .sqlite) { _, client in
            let document = try await Self.servedDocument(client)
            #expect(document["openapi"] as? String == "3.1.0")
            let components = try #require(document["components"] as? [String: Any])
            let schemes = try #require(components["securitySchemes"] as? [String: Any])
            let bearer = try #require(schemes["bearerAuth"] as? [String: Any])
            #expect(bearer["type"] as? String == "http" && bearer["scheme"] as? String == "bearer")

            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var problems: [String] = []
            for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
                for (method, value) in item.sorted(by: { $0.key < $1.key }) where Self.methods.contains(method) {
                    let name = "\(method.uppercased()) \(path)"
                    guard let operation = value as? [String: Any], let responses = operation["responses"] as? [String: Any] else {
                        problems.append("\(name): no responses")
                        continue
                    }
                    if responses["401"] == nil {
                        // A malformed or refused credential is 401 on every route, public ones included.
                        problems.append("\(name): no 401")
                    }
                    let parameters = (operation["parameters"] as? [[String: Any]]) ?? []
                    let references = parameters.compactMap { $0["$ref"] as? String }
                    if method == "post" && !references.contains("#/components/parameters/IdempotencyKey") {
                        problems.append("\(name): POST without the Idempotency-Key parameter")
                    }
                    // With a key and a caller, the idempotency layer reads any POST's body and checks the key:
                    // malformed (400), still running (409), body too large (413), reused for another body (422).
                    for status in ["400", "409", "413", "422"] where method == "post" && responses[status] == nil {
                        problems.append("\(name): POST without \(status), which the Idempotency-Key handling can answer")
                    }
                    if operation["requestBody"] != nil {
                        for status in ["400", "413", "415", "422"] where responses[status] == nil {
                            problems.append("\(name): takes a body but documents no \(status)")
                        }
                    }
                    for (status, response) in responses {
                        guard let code = Int(status), code >= 400, let response = response as? [String: Any] else { continue }
                        let reference = response["$ref"] as? String
                        let content = response["content"] as? [String: Any]
                        // The Gotchu and DataUnion surfaces answer in their servers' own error shapes, by design.
                        let tags = operation["tags"] as? [String] ?? []
                        let compatibility = tags.contains("gotchu-compatibility") || tags.contains("dataunion-compatibility")
                        // A refused WebSocket handshake is answered by the server's upgrader, with an empty 400.
                        let refusedUpgrade = responses["101"] != nil && status == "400"
                        if reference == nil && content?["application/problem+json"] == nil && status != "503" && !compatibility && !refusedUpgrade {
                            problems.append("\(name): \(status) is not application/problem+json")
                        }
                    }
                }
            }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The document as `GET /openapi.json` serves it.
    static func servedDocument(_ client: any TestClientProtocol) async throws -> [String: Any] {
        try await client.execute(uri: "/openapi.json", method: .get) { response in
            #expect(response.status == .ok)
            return try response.json()
        }
    }

    /// `METHOD /path` for every operation of the document, in Hummingbird's spelling of templates.
    static func operations(in document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }
}
