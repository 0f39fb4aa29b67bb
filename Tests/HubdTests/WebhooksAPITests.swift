import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@Suite("webhooks API", .timeLimit(.minutes(4)))
struct WebhooksAPITests {
    @Test(
        "an endpoint made over HTTP receives signed events; attempts are listed; redelivery records a manual attempt",
        arguments: TestBackend.enabled
    )
    func endToEnd(backend: TestBackend) async throws {
        try await LoopbackReceiver.run { receiver in
            try await withTestHub(on: backend) { hub, client in
                var endpointID = ""
                var secret = ""
                try await client.execute(
                    uri: "/v1/webhooks",
                    method: .post,
                    headers: LedgerAPITests.admin + jsonHeaders,
                    body: jsonBody(["url": receiver.url, "event_types": ["ledger.transfer.*"], "description": "books"])
                ) { response in
                    #expect(response.status == .created, "\(response.text)")
                    endpointID = try #require(try response.json()["id"] as? String)
                    secret = try #require(try response.json()["secret"] as? String)
                    #expect(secret.hasPrefix("whsec_"))
                }
                _ = try await LedgerAPITests.setUp(client)  // mints once: one ledger.transfer.posted
                try await eventually("the delivery") { receiver.count == 1 }
                let request = try #require(receiver.requests.first)
                let signer = try StandardWebhookSigner(secret: secret)
                try signer.verify(
                    id: request.id,
                    timestamp: request.timestamp,
                    signatures: request.signature,
                    body: request.body,
                    now: Int64(Date().timeIntervalSince1970)
                )
                #expect(String(decoding: request.body, as: UTF8.self).contains("\"type\":\"ledger.transfer.posted\""))

                // The attempt is recorded once the receiver has answered: wait for the record.
                let deliveriesPath = "/v1/webhooks/\(endpointID)/deliveries"
                try await eventually("the attempt record") {
                    try await client.execute(uri: deliveriesPath, method: .get, headers: LedgerAPITests.admin) {
                        ($0.object["data"] as? [Any])?.isEmpty == false
                    }
                }
                var sequence: Int64 = 0
                try await client.execute(uri: "/v1/webhooks/\(endpointID)/deliveries", method: .get, headers: LedgerAPITests.admin) { response in
                    let data = try #require(try response.json()["data"] as? [[String: Any]])
                    #expect(data.count == 1)
                    #expect(data.first?["outcome"] as? String == "succeeded")
                    sequence = Int64(try #require(data.first?["event_sequence"] as? Int))
                }
                try await client.execute(
                    uri: "/v1/webhooks/\(endpointID)/redeliver",
                    method: .post,
                    headers: LedgerAPITests.admin + jsonHeaders,
                    body: jsonBody(["event_sequence": sequence])
                ) { response in
                    #expect(response.status == .created)
                    #expect(response.object["manual"] as? Bool == true)
                }
                #expect(receiver.count == 2)
                try await client.execute(uri: "/v1/webhooks/\(endpointID)", method: .get, headers: LedgerAPITests.admin) { response in
                    #expect(response.object["secret"] == nil)
                    #expect((response.object["status"] as? [String: Any])?["lag"] as? Int == 0)
                }
                // Members cannot see webhooks; bad input is a 422 naming the field; unknown ids 404.
                try await client.execute(uri: "/v1/webhooks", method: .get, headers: LedgerAPITests.alice) { #expect($0.status == .forbidden) }
                try await client.execute(
                    uri: "/v1/webhooks",
                    method: .post,
                    headers: LedgerAPITests.admin + jsonHeaders,
                    body: jsonBody(["url": "ftp://example.org/x"])
                ) { response in
                    #expect(response.status == .unprocessableContent)
                    #expect(response.object["field"] as? String == "url")
                }
                try await client.execute(uri: "/v1/webhooks/\(UUID())", method: .get, headers: LedgerAPITests.admin) {
                    #expect($0.status == .notFound)
                }
                try await client.execute(uri: "/v1/webhooks/\(endpointID)", method: .delete, headers: LedgerAPITests.admin) {
                    #expect($0.status == .noContent)
                }
            }
        }
    }
}

/// A real HTTP server on loopback that records what it receives.
final class LoopbackReceiver: Sendable {
    struct Request: Sendable {
        var id: String
        var timestamp: String
        var signature: String
        var body: [UInt8]
    }

    private let received = Mutex<[Request]>([])
    private let portBox = Mutex(0)

    var url: String { "http://127.0.0.1:\(portBox.withLock { $0 })/hook" }
    var requests: [Request] { received.withLock { $0 } }
    var count: Int { requests.count }

    static func run(_ body: (LoopbackReceiver) async throws -> Void) async throws {
        let receiver = LoopbackReceiver()
        let router = Router()
        router.post("hook") { request, _ -> HTTPResponse.Status in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            receiver.received.withLock {
                $0.append(
                    Request(
                        id: request.headers[.init("webhook-id")!] ?? "",
                        timestamp: request.headers[.init("webhook-timestamp")!] ?? "",
                        signature: request.headers[.init("webhook-signature")!] ?? "",
                        body: Array(bytes.readableBytesView)
                    )
                )
            }
            return .noContent
        }
        let logger = Logger(label: "receiver")
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in receiver.portBox.withLock { $0 = channel.localAddress?.port ?? -1 } },
            logger: logger
        )
        let serviceGroup = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await serviceGroup.run() }
            do {
                try await eventually("the receiver to listen") { receiver.portBox.withLock { $0 } != 0 }
                try await body(receiver)
            } catch {
                await serviceGroup.triggerGracefulShutdown()
                throw error
            }
            await serviceGroup.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}
