import HubKernel

/// Refusals of DID changes their holder signs (``DIDRegistry/prepare(_:by:)``, then submitted).
extension SubstrateError {
    /// The change was prepared for a nonce the DID's key has used since (another change went first).
    static func nonceStale(signed: UInt64, current: UInt64) -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "nonce_stale",
            message:
                "The change was signed for nonce \(signed), but the key's next nonce is \(current): another change was made since. Prepare it again and sign the new payload; nothing changed.",
            field: "nonce"
        )
    }

    /// The signature does not verify as the DID key's over the change's payload.
    static func changeSignatureInvalid(_ detail: String) -> SubstrateError {
        SubstrateError(kind: .invalidField, errorCode: "invalid_signature", message: detail + " Nothing changed.", field: "signature")
    }
}
