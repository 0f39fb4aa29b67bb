/// Why the webhook engine refused a request or could not deliver. Codes are stable strings that
/// clients (and the HTTP layer's problem documents) may match on; messages are for people.
public struct WebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ raw: String) { rawValue = raw }
        public var description: String { rawValue }

        /// The endpoint URL is not an absolute `http`/`https` URL with a host.
        public static let invalidURL = Code("invalid_url")
        /// The URL's host is (or resolves to) an address webhooks may not reach.
        public static let addressRefused = Code("address_refused")
        /// An event-type filter is not a dotted type, optionally ending in `.*`.
        public static let invalidFilter = Code("invalid_filter")
        /// Some other field is out of range (description too long, a bad start sequence, …).
        public static let invalidField = Code("invalid_field")
        /// A pagination cursor that this store did not hand out.
        public static let invalidCursor = Code("invalid_cursor")
        /// No endpoint (or event) with that id.
        public static let notFound = Code("not_found")
        /// A `whsec_…` secret that is not base64 or is empty.
        public static let invalidSecret = Code("invalid_secret")
        /// A `webhook-signature` header with no `v1` signature that matches.
        public static let signatureMismatch = Code("signature_mismatch")
        /// A `webhook-timestamp` outside the receiver's tolerance window (replay protection).
        public static let timestampOutOfTolerance = Code("timestamp_out_of_tolerance")
        /// A webhook header that is missing or not in the scheme's syntax.
        public static let malformedHeader = Code("malformed_header")
        /// The HTTP request could not be made or completed (DNS, connect, TLS, timeout).
        public static let transportFailed = Code("transport_failed")
    }

    public var code: Code
    public var message: String
    /// The request field at fault, in the HTTP API's `snake_case` (e.g. `url`, `event_types`).
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code): \(message)" }

    /// Errors compare by code and field so tests can match on them without repeating the wording.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.field == rhs.field }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(field)
    }
}
