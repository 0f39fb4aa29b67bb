import HubKernel

/// The tip jar's refusals, as a domain error of the kernel's error protocol (`HubError`): the
/// rail says what went wrong and how (its kind, a stable code, the field at fault), and the kernel
/// chooses the HTTP status (and the JSON-RPC code) for the kind, in one place.
struct TipJarError: HubError {
    /// The stable machine codes clients switch on.
    enum Code: String, Sendable {
        case notFound = "not_found"
        case forbidden
        case jarClosed = "jar_closed"
        case invalidField = "invalid_field"
        case amountMustNotBeZero = "amount_must_not_be_zero"
        case assetNotFound = "asset_not_found"
        case assetMismatch = "asset_mismatch"
        case payeeAccountNotFound = "payee_account_not_found"
        case debitAccountNotFound = "debit_account_not_found"
    }

    var code: Code
    var message: String
    var field: String?

    init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    var errorCode: String { code.rawValue }

    var kind: HubErrorKind {
        switch code {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .jarClosed: .conflict
        case .invalidField, .amountMustNotBeZero, .assetNotFound, .assetMismatch, .payeeAccountNotFound, .debitAccountNotFound:
            .invalidField
        }
    }

    static let jarNotFound = TipJarError(.notFound, "No tip jar with that id, or you may not see it.")
    static let jarClosed = TipJarError(.jarClosed, "This tip jar is closed.")
}
