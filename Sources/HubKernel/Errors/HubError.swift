/// What every domain error of the hub says about itself, whatever the transport: its kind, a
/// stable machine code, a `message` for people and the input `field` at fault. Services throw
/// these, never transport errors; the kernel maps them to RFC 9457 problems (HTTP) and to JSON-RPC
/// errors in one place (``HubErrorKind/httpStatus``, ``HubErrorKind/jsonRPCCode``), so a new
/// error type needs no mapping of its own.
public protocol HubError: Error, Sendable {
    var kind: HubErrorKind { get }
    /// The stable machine code (`exceeds_credits`, `email_taken`); types keep their own typed
    /// `code` and give its text here.
    var errorCode: String { get }
    var message: String { get }
    var field: String? { get }
    /// How long the caller should wait before trying again, when that is known (a limit's wait).
    var retryAfter: Duration? { get }
}

extension HubError {
    public var field: String? { nil }
    public var retryAfter: Duration? { nil }
}

/// The transport-neutral classes of failure.
public enum HubErrorKind: String, Sendable, Hashable, CaseIterable {
    /// The caller's credentials are missing, wrong, expired or revoked.
    case unauthenticated
    /// The caller is known but may not do this.
    case forbidden
    /// The thing named does not exist (or the caller may not know that it does).
    case notFound
    /// The request clashes with the current state (a taken name, a used one-time token).
    case conflict
    /// The thing named existed but is over for good (an expired session, a lapsed lock): unlike
    /// ``notFound`` the caller learns that retrying with the same id is pointless.
    case gone
    /// A field of the input is malformed or out of range.
    case invalidField
    /// A well-formed request the rules refuse (insufficient funds, a closed chain).
    case refused
    /// The hub cannot do it now (shutting down, a dependency down): a retry later may succeed.
    case unavailable
    /// The caller tried too often (failed sign-ins): a retry after ``HubError/retryAfter`` may succeed.
    case rateLimited
    /// The input is larger than the hub takes for it (an image past its size limit).
    case tooLarge
    /// The input is of a type the hub does not take, or not of the type it claims (an image format).
    case unsupportedType

    /// The HTTP status of a problem of this kind.
    public var httpStatus: Int {
        switch self {
        case .unauthenticated: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .gone: 410
        case .invalidField, .refused: 422
        case .unavailable: 503
        case .rateLimited: 429
        case .tooLarge: 413
        case .unsupportedType: 415
        }
    }

    /// The JSON-RPC error code of this kind: JSON-RPC 2.0's `-32602` (invalid params) for a bad
    /// field or type, otherwise the server-error range as EIP-1474 assigns it to Ethereum nodes (`-32005`
    /// "limit exceeded" for a limit). EIP-1474
    /// has no "gone": to a node's client, a thing that is over is a resource not found.
    public var jsonRPCCode: Int {
        switch self {
        case .invalidField: -32602
        case .notFound, .gone: -32001
        case .unavailable: -32002
        case .refused, .conflict: -32003
        case .unauthenticated, .forbidden: -32000
        case .rateLimited, .tooLarge: -32005
        case .unsupportedType: -32602
        }
    }
}
