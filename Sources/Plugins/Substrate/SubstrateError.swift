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

    // The PeaqDid pallet's errors (rails.md §4.1, enum order), as the registry refuses a change:
    // the pallet's name, snake-cased like the kernel's codes.

    static func attributeNameExceedMax64(_ count: Int) -> SubstrateError {
        SubstrateError(
            kind: .invalidField,
            errorCode: "attribute_name_exceed_max64",
            message: "An attribute name is at most 64 bytes (UTF-8); this one is \(count).",
            field: "name"
        )
    }

    static func attributeAlreadyExist() -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "attribute_already_exist",
            message: "The DID already has this attribute; change it with PUT.",
            field: "name"
        )
    }

    static func attributeNotFound() -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "attribute_not_found", message: "The DID has no such attribute.")
    }

    static func attributeAuthorizationFailed() -> SubstrateError {
        SubstrateError(
            kind: .forbidden,
            errorCode: "attribute_authorization_failed",
            message: "Only the DID's owner, the user holding its wallet, may change its attributes."
        )
    }

    static func maxBlockNumberExceeded() -> SubstrateError {
        SubstrateError(
            kind: .invalidField,
            errorCode: "max_block_number_exceeded",
            message: "The current block plus valid_for is past the largest block number (2^32 - 1).",
            field: "valid_for"
        )
    }

    static func invalidSuppliedValue(_ field: String, _ message: String) -> SubstrateError {
        SubstrateError(kind: .invalidField, errorCode: "invalid_supplied_value", message: message, field: field)
    }

    /// A DID that is not `did:peaq:` and an SS58 address (or 0x public key).
    static func parseError(_ detail: String) -> SubstrateError {
        SubstrateError(
            kind: .invalidField,
            errorCode: "parse_error",
            message: "Not a peaq DID (did:peaq:<SS58 address>): \(detail)",
            field: "did"
        )
    }

    /// The DID's wallet is external: the hub holds no key to sign with.
    static func custodialKeyRequired() -> SubstrateError {
        SubstrateError(
            kind: .refused,
            errorCode: "custodial_key_required",
            message:
                "The DID's wallet is external and the hub holds no key for it: sign the change with your wallet (POST …/dids/{did}/changes/prepare, then POST …/dids/{did}/changes)."
        )
    }
}
