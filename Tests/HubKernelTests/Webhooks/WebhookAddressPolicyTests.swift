import Foundation
import HubTestSupport
import Testing

@testable import HubKernel

@Suite("webhook address policy (SSRF)")
struct WebhookAddressPolicyTests {
    static func bytes(_ text: String) -> [UInt8] { IPNetwork.parse(text)! }

    @Test(
        "refuses every non-public address, in every spelling",
        arguments: [
            "127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
            "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1", "::1", "::", "fd00::1", "fc00::1", "fe80::1", "ff02::1",
            "::ffff:169.254.169.254", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "::127.0.0.1", "2001:db8::1",
        ]
    )
    func refuses(_ address: String) {
        #expect(WebhookAddressPolicy().refusal(for: Self.bytes(address)) != nil)
    }

    @Test("public addresses are delivered to", arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
    func allows(_ address: String) {
        #expect(WebhookAddressPolicy().refusal(for: Self.bytes(address)) == nil)
    }

    @Test(
        "hosts in URLs: literal spellings are read as the C library reads them, localhost by name",
        arguments: [
            "169.254.169.254", "2130706433", "0x7f.1", "0177.0.0.1", "0x7f000001", "127.1", "[::1]", "[::ffff:a9fe:a9fe]", "localhost",
            "api.localhost",
        ]
    )
    func hosts(_ host: String) {
        #expect(WebhookAddressPolicy().refusal(forHost: host) != nil, "\(host)")
    }

    @Test("an allow-list lets private receivers through, and nothing else")
    func allowList() {
        let policy = WebhookAddressPolicy(allowedNetworks: ["10.1.0.0/16", "fd00::/8"])
        #expect(policy.refusal(for: Self.bytes("10.1.2.3")) == nil)
        #expect(policy.refusal(for: Self.bytes("10.2.0.1")) != nil)
        #expect(policy.refusal(for: Self.bytes("fd12::1")) == nil)
        #expect(policy.refusal(for: Self.bytes("169.254.169.254")) != nil)
        #expect(IPNetwork(parsing: "10.0.0.0/33") == nil && IPNetwork(parsing: "nonsense") == nil && IPNetwork(parsing: "::/129") == nil)
    }

    @Test("delivery resolves the host and refuses a name that points inside, before connecting", .timeLimit(.minutes(3)))
    func resolvedAtDelivery() async throws {
        try await WebhookReceiver.run { (receiver: WebhookReceiver) async throws in
            let guarded = CurlWebhookClient(threadCount: 1)
            let url = receiver.url("inside").replacingOccurrences(of: "127.0.0.1", with: "localhost")
            await #expect(throws: WebhookError(.addressRefused, "")) {
                try await guarded.post(url: url, headers: [:], body: [], timeout: .seconds(5))
            }
            await #expect(throws: WebhookError(.addressRefused, "")) {
                try await guarded.post(url: receiver.url("inside"), headers: [:], body: [], timeout: .seconds(5))
            }
            #expect(receiver.received("inside").isEmpty)
            // The same receiver, allowed: the pinned connection goes through.
            let allowed = CurlWebhookClient(threadCount: 1, addressPolicy: .testReceivers)
            #expect(try await allowed.post(url: url, headers: [:], body: [], timeout: .seconds(5)).isSuccess)
        }
    }
}
