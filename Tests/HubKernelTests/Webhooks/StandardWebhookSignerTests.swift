import Foundation
import HubKernel
import Testing

@Suite("Standard Webhooks signer")
struct StandardWebhookSignerTests {
    let vectors: WebhookVectorFile

    init() throws { vectors = try WebhookVectorFile("standard_webhooks") }

    @Test("the standardwebhooks library's published example")
    func publishedExample() throws {
        let signer = try StandardWebhookSigner(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = signer.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test("every golden signing vector")
    func signingVectors() throws {
        for vector in vectors.of(kind: "sign") {
            let payload = try vector.text("payload")
            #expect(Array(payload.utf8) == (try bytes(fromHex: try vector.text("payload_hex"))), "\(vector.vectorName): payload bytes")
            let timestamp = try #require(Int64(try vector.text("timestamp")))
            let signer = try StandardWebhookSigner(secret: try vector.text("secret"))
            let expected = try vector.text("signature")
            #expect(signer.sign(id: try vector.text("id"), timestamp: timestamp, body: Array(payload.utf8)) == expected, "\(vector.vectorName)")
            // And the receiving side accepts it.
            #expect(throws: Never.self, "\(vector.vectorName)") {
                try signer.verify(
                    id: try vector.text("id"),
                    timestamp: try vector.text("timestamp"),
                    signatures: expected,
                    body: Array(payload.utf8),
                    now: timestamp
                )
            }
        }
    }

    @Test("every golden verification vector")
    func verificationVectors() throws {
        for vector in vectors.of(kind: "verify") {
            let signer = try StandardWebhookSigner(secret: try vector.text("secret"))
            let timestamp = try vector.text("timestamp")
            let valid = try #require(vector["valid"] as? Bool)
            let outcome = Result {
                try signer.verify(
                    id: try vector.text("id"),
                    timestamp: timestamp,
                    signatures: try vector.text("signature_header"),
                    body: Array(try vector.text("payload").utf8),
                    now: try #require(Int64(timestamp))
                )
            }
            switch outcome {
            case .success: #expect(valid, "\(vector.vectorName) verified but should not")
            case .failure(let error):
                #expect(!valid, "\(vector.vectorName) rejected: \(error)")
                #expect(error as? WebhookError == WebhookError(.signatureMismatch, "", field: "webhook-signature"))
            }
        }
    }

    @Test("verify rejects a tampered body, id or timestamp")
    func rejectsTampering() throws {
        let signer = try StandardWebhookSigner(secret: StandardWebhookSigner.generateSecret())
        let body = Array(#"{"amount":"5000"}"#.utf8)
        let signature = signer.sign(id: "evt-1", timestamp: 1_800_000_000, body: body)
        let mismatch = WebhookError(.signatureMismatch, "", field: "webhook-signature")
        #expect(throws: mismatch) {
            try signer.verify(
                id: "evt-1",
                timestamp: "1800000000",
                signatures: signature,
                body: Array(#"{"amount":"5001"}"#.utf8),
                now: 1_800_000_000
            )
        }
        #expect(throws: mismatch) {
            try signer.verify(id: "evt-2", timestamp: "1800000000", signatures: signature, body: body, now: 1_800_000_000)
        }
        #expect(throws: mismatch) {
            try signer.verify(id: "evt-1", timestamp: "1800000001", signatures: signature, body: body, now: 1_800_000_000)
        }
        let other = try StandardWebhookSigner(secret: StandardWebhookSigner.generateSecret())
        #expect(throws: mismatch) {
            try other.verify(id: "evt-1", timestamp: "1800000000", signatures: signature, body: body, now: 1_800_000_000)
        }
    }

    @Test("verify rejects timestamps outside the tolerance, either way, and malformed ones")
    func rejectsOldAndFutureTimestamps() throws {
        let signer = try StandardWebhookSigner(secret: StandardWebhookSigner.generateSecret())
        let body = Array("{}".utf8)
        let now: Int64 = 1_800_000_000
        let old = now - 301
        let stale = WebhookError(.timestampOutOfTolerance, "", field: "webhook-timestamp")
        #expect(throws: stale) {
            try signer.verify(id: "e", timestamp: String(old), signatures: signer.sign(id: "e", timestamp: old, body: body), body: body, now: now)
        }
        let future = now + 301
        #expect(throws: stale) {
            try signer.verify(
                id: "e",
                timestamp: String(future),
                signatures: signer.sign(id: "e", timestamp: future, body: body),
                body: body,
                now: now
            )
        }
        // At the edge of the default five minutes, and with a tolerance of one's own.
        let edge = now - 300
        try signer.verify(id: "e", timestamp: String(edge), signatures: signer.sign(id: "e", timestamp: edge, body: body), body: body, now: now)
        #expect(throws: stale) {
            try signer.verify(
                id: "e",
                timestamp: String(edge),
                signatures: signer.sign(id: "e", timestamp: edge, body: body),
                body: body,
                now: now,
                tolerance: .seconds(60)
            )
        }
        for bad in ["", "-5", "1.5", "12a", " 1800000000", "99999999999999999999"] {
            #expect(throws: WebhookError(.malformedHeader, "", field: "webhook-timestamp"), "\(bad)") {
                try signer.verify(id: "e", timestamp: bad, signatures: "v1,AAAA", body: body, now: now)
            }
        }
        #expect(throws: WebhookError(.malformedHeader, "", field: "webhook-id")) {
            try signer.verify(id: "", timestamp: String(now), signatures: signer.sign(id: "", timestamp: now, body: body), body: body, now: now)
        }
    }

    @Test("generated secrets are whsec_ plus base64 of 24 to 64 random bytes", arguments: [24, 32, 64])
    func generatedSecrets(byteCount: Int) throws {
        let secrets = (0..<20).map { _ in StandardWebhookSigner.generateSecret(byteCount: byteCount) }
        #expect(Set(secrets).count == secrets.count)
        for secret in secrets {
            #expect(secret.hasPrefix("whsec_"))
            #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count == byteCount)
            _ = try StandardWebhookSigner(secret: secret)
        }
    }

    @Test("secrets that are not base64 are refused", arguments: ["whsec_", "whsec_!!!!", "", "whsec_a"])
    func invalidSecrets(secret: String) {
        #expect(throws: WebhookError(.invalidSecret, "", field: "secret")) { try StandardWebhookSigner(secret: secret) }
    }
}
