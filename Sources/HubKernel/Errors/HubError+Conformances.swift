/// The kernel's error types as ``HubError``s: the kind of each is decided here, next to the
/// protocol, and the transports map kinds (``HubErrorKind``).
extension TransferError: HubError {
    /// A transfer the ledger refuses is a rule (funds, flags, a closed hold); a malformed one names
    /// its field.
    public var kind: HubErrorKind {
        switch code {
        case .batchTooLarge, .existsWithDifferentFields: .invalidField
        default: field == nil ? .refused : .invalidField
        }
    }
    public var errorCode: String { code.rawValue }
}

extension IdentityError: HubError {
    public var kind: HubErrorKind {
        switch code.kind {
        case .unauthenticated: .unauthenticated
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .rateLimited: .rateLimited
        default: .invalidField
        }
    }
    public var errorCode: String { code.rawValue }
}

extension WebhookError: HubError {
    public var kind: HubErrorKind {
        switch code {
        case .notFound: .notFound
        case .transportFailed: .unavailable
        default: .invalidField
        }
    }
    public var errorCode: String { code.rawValue }
}

extension LedgerError: HubError {
    /// The writer stopped: the server is shutting down, another instance can take the request.
    public var kind: HubErrorKind { .unavailable }
    public var errorCode: String { code }
}
