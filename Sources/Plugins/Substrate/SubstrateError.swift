import HubKernel

/// Why the Substrate rail refused a request. A ``HubError``: the kernel maps its kind to the HTTP
/// status, so controllers only pass it on.
struct SubstrateError: HubError, Equatable, CustomStringConvertible {
    var kind: HubErrorKind
    var errorCode: String
    var message: String
    var field: String?

    var description: String { "\(errorCode): \(message)" }

    static func invalid(_ field: String, _ message: String) -> SubstrateError {
        SubstrateError(kind: .invalidField, errorCode: "invalid_field", message: message, field: field)
    }

    static func invalidAddress(_ field: String, _ detail: String) -> SubstrateError {
        SubstrateError(
            kind: .invalidField,
            errorCode: "invalid_address",
            message: "Not an SS58 address or 0x-hex public key: \(detail)",
            field: field
        )
    }

    /// The address is another user's wallet (or signs in another user).
    static func walletTaken(_ address: String) -> SubstrateError {
        SubstrateError(kind: .conflict, errorCode: "wallet_taken", message: "\(address) is already another account's wallet.", field: "address")
    }

    static func walletNotFound(_ address: String) -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "wallet_not_found", message: "You have no Substrate wallet \(address.prefix(64)).")
    }

    static func unknownChallenge() -> SubstrateError {
        SubstrateError(
            kind: .unauthenticated,
            errorCode: "challenge_unknown",
            message: "No open challenge with this nonce (unknown, used or expired); request one from POST /v1/auth/wallet/challenge.",
            field: "nonce"
        )
    }

    static func keyUnavailable(_ address: String) -> SubstrateError {
        SubstrateError(
            kind: .unavailable,
            errorCode: "key_unavailable",
            message: "The secret of \(address) does not open with the rail's data key: another database or secrets key file?"
        )
    }
}
