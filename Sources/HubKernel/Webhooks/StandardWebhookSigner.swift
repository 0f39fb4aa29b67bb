import COpenSSL
import Foundation

/// Signs and verifies webhook requests per the Standard Webhooks scheme (symmetric, `v1`).
///
/// The signed content is `"{webhook-id}.{webhook-timestamp}.{body}"`, the signature the base64
/// HMAC-SHA256 of it under the secret's bytes, sent as `webhook-signature: v1,<base64>`. The id
/// is the event's CloudEvents id, the same on every retry, so a receiver can drop duplicates; the
/// timestamp is the attempt's, so a receiver can refuse replays of old requests.
///
/// ```swift
/// let signer = try StandardWebhookSigner(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
/// let signature = signer.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: Array(#"{"test": 2432232314}"#.utf8))
/// // "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
/// ```
public struct StandardWebhookSigner: Sendable {
    /// Marks a symmetric secret as such wherever it is pasted.
    public static let secretPrefix = "whsec_"
    /// The scheme allows 24 to 64 bytes of key.
    public static let secretByteRange = 24...64
    /// Receivers should refuse requests whose timestamp is further than this from their clock.
    public static let defaultTolerance: Duration = .seconds(300)

    private let key: [UInt8]

    /// A signer for a `whsec_…` secret. The prefix is optional and base64 padding may be left out,
    /// as other Standard Webhooks libraries accept.
    /// - Throws: ``WebhookError`` `invalid_secret` when the rest is not base64 or decodes to nothing.
    public init(secret: String) throws {
        var encoded = secret.hasPrefix(Self.secretPrefix) ? String(secret.dropFirst(Self.secretPrefix.count)) : secret
        if encoded.utf8.count % 4 != 0 { encoded += String(repeating: "=", count: 4 - encoded.utf8.count % 4) }
        guard let data = Data(base64Encoded: encoded), !data.isEmpty else {
            throw WebhookError(.invalidSecret, "a webhook secret is 'whsec_' followed by base64", field: "secret")
        }
        key = Array(data)
    }

    /// A signer for raw key bytes.
    public init(key: [UInt8]) {
        precondition(!key.isEmpty, "an HMAC key must not be empty")
        self.key = key
    }

    /// A new random secret: `whsec_` + base64 of `byteCount` bytes from libsodium's generator.
    public static func generateSecret(byteCount: Int = 32) -> String {
        precondition(secretByteRange.contains(byteCount), "a Standard Webhooks secret has 24 to 64 bytes")
        return secretPrefix + Data(Sodium.randomBytes(byteCount)).base64EncodedString()
    }

    /// The `webhook-signature` value for one request: `v1,<base64 HMAC-SHA256>`.
    /// - Parameters:
    ///   - id: the `webhook-id` header (must not contain `.`; event ids are UUIDs).
    ///   - timestamp: the `webhook-timestamp` header, Unix seconds of the attempt.
    ///   - body: the exact bytes sent as the request body.
    public func sign(id: String, timestamp: Int64, body: some Collection<UInt8>) -> String {
        "v1," + Data(mac(id: id, timestamp: String(timestamp), body: body)).base64EncodedString()
    }

    /// The three headers of the scheme for one request.
    public func headers(id: String, timestamp: Int64, body: some Collection<UInt8>) -> [String: String] {
        ["webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": sign(id: id, timestamp: timestamp, body: body)]
    }

    /// Checks a request as a receiver would.
    /// - Parameters:
    ///   - id: the `webhook-id` header.
    ///   - timestamp: the `webhook-timestamp` header as received (decimal Unix seconds).
    ///   - signatures: the `webhook-signature` header: space-separated `version,base64` entries, of
    ///     which any one `v1` entry must match (several are sent while a secret is rotated).
    ///   - body: the raw request body, before any JSON parsing.
    ///   - now: the receiver's clock, Unix seconds.
    ///   - tolerance: how far `timestamp` may be from `now`, either way.
    /// - Throws: ``WebhookError`` with code `malformed_header`, `timestamp_out_of_tolerance` or
    ///   `signature_mismatch`. The comparison is constant-time.
    public func verify(
        id: String,
        timestamp: String,
        signatures: String,
        body: some Collection<UInt8>,
        now: Int64,
        tolerance: Duration = defaultTolerance
    ) throws {
        guard !id.isEmpty else { throw WebhookError(.malformedHeader, "webhook-id is missing", field: "webhook-id") }
        guard !timestamp.isEmpty, timestamp.utf8.count <= 18, timestamp.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let seconds = Int64(timestamp)
        else {
            throw WebhookError(.malformedHeader, "webhook-timestamp must be Unix seconds", field: "webhook-timestamp")
        }
        let window = tolerance.components.seconds
        guard seconds >= now - window, seconds <= now + window else {
            throw WebhookError(
                .timestampOutOfTolerance,
                "webhook-timestamp \(seconds) is more than \(window) s from now (\(now))",
                field: "webhook-timestamp"
            )
        }
        let expected = mac(id: id, timestamp: timestamp, body: body)
        var matched = false
        for entry in signatures.split(separator: " ", omittingEmptySubsequences: true) {
            let parts = entry.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "v1", let given = Data(base64Encoded: String(parts[1])) else { continue }
            // Check every entry, not just up to the first match, so the time taken does not say which matched.
            if given.count == expected.count && Self.constantTimeEqual(Array(given), expected) { matched = true }
        }
        guard matched else {
            throw WebhookError(.signatureMismatch, "no v1 signature in webhook-signature matches", field: "webhook-signature")
        }
    }

    private func mac(id: String, timestamp: String, body: some Collection<UInt8>) -> [UInt8] {
        var content: [UInt8] = []
        content.reserveCapacity(id.utf8.count + timestamp.utf8.count + body.count + 2)
        content.append(contentsOf: id.utf8)
        content.append(UInt8(ascii: "."))
        content.append(contentsOf: timestamp.utf8)
        content.append(UInt8(ascii: "."))
        content.append(contentsOf: body)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            content.withUnsafeBytes { data in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), data.bindMemory(to: UInt8.self).baseAddress, data.count, &out, &length)
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed")
        return Array(out.prefix(Int(length)))
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }
}
