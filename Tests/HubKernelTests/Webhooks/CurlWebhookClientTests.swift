import Foundation
import HubKernel
import HubTestSupport
import Testing

@Suite("curl webhook client")
struct CurlWebhookClientTests {
    let client = CurlWebhookClient(threadCount: 2, addressPolicy: .testReceivers)

    @Test("posts the body and headers and returns the status and body", .timeLimit(.minutes(3)))
    func postsAndReads() async throws {
        try await WebhookReceiver.run { receiver in
            receiver.setReply(.init(status: 202, body: Array("accepted ✓".utf8)), for: "a")
            let body = Array(#"{"hello":"wörld"}"#.utf8)
            let response = try await client.post(
                url: receiver.url("a"),
                headers: ["x-test": "1", "content-type": "application/json"],
                body: body,
                timeout: .seconds(5)
            )
            #expect(response == WebhookHTTPResponse(status: 202, bodyPrefix: Array("accepted ✓".utf8)))
            #expect(response.isSuccess)
            let request = try #require(receiver.received("a").first)
            #expect(request.body == body)
            #expect(request.headers["x-test"] == "1" && request.headers["content-type"] == "application/json")
            #expect(request.headers["user-agent"] == "hubd-webhooks/1")
            #expect(request.headers["expect"] == nil)
        }
    }

    @Test("keeps only the first 4 KiB of a large response", .timeLimit(.minutes(3)))
    func truncatesLargeResponses() async throws {
        try await WebhookReceiver.run { receiver in
            let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
            receiver.setReply(.init(status: 200, body: large), for: "big")
            let response = try await client.post(
                url: receiver.url("big"),
                headers: [:],
                body: Array(repeating: 0x61, count: 5000),
                timeout: .seconds(5)
            )
            #expect(response.status == 200)
            #expect(response.bodyPrefix == Array(large.prefix(CurlWebhookClient.maxResponseBytes)))
        }
    }

    @Test("does not follow redirects", .timeLimit(.minutes(3)))
    func noRedirects() async throws {
        try await WebhookReceiver.run { receiver in
            receiver.setReply(.init(status: 302, headers: ["location": receiver.url("target")]), for: "moved")
            let response = try await client.post(url: receiver.url("moved"), headers: [:], body: [], timeout: .seconds(5))
            #expect(response.status == 302 && !response.isSuccess)
            #expect(receiver.received("target").isEmpty)
        }
    }

    @Test("refuses schemes other than http and https", arguments: ["file:///etc/hostname", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"])
    func refusesOtherSchemes(url: String) async throws {
        await #expect(throws: WebhookError(.transportFailed, "")) {
            try await client.post(url: url, headers: [:], body: [], timeout: .seconds(2))
        }
    }

    @Test("a refused connection is a transport failure", .timeLimit(.minutes(3)))
    func connectionRefused() async throws {
        await #expect(throws: WebhookError(.transportFailed, "")) {
            try await client.post(url: "http://127.0.0.1:1/", headers: [:], body: [], timeout: .seconds(5))
        }
    }

    @Test("a receiver slower than the timeout is a transport failure", .timeLimit(.minutes(3)))
    func timesOut() async throws {
        try await WebhookReceiver.run { receiver in
            receiver.hold("slow")
            let started = ContinuousClock.now
            await #expect(throws: WebhookError(.transportFailed, "")) {
                try await client.post(url: receiver.url("slow"), headers: [:], body: [], timeout: .milliseconds(300))
            }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("cancelling the task abandons the request", .timeLimit(.minutes(3)))
    func cancellation() async throws {
        try await WebhookReceiver.run { receiver in
            receiver.hold("slow")
            let client = self.client
            let url = receiver.url("slow")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: CancellationError.self) {
                        try await client.post(url: url, headers: [:], body: [], timeout: .seconds(30))
                    }
                }
                try await eventually("the request to arrive") { receiver.received("slow").count == 1 }
                group.cancelAll()
                try await group.waitForAll()
            }
        }
    }
}
