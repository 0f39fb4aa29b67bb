import HubKernel

/// The DID document's refusals (``DIDRegistry/createDocument(_:by:)`` and its services); the
/// pallet's own errors (``SubstrateError/attributeAuthorizationFailed()`` and the rest) still
/// apply to the attribute holding it.
extension SubstrateError {
    static func didDocumentNotFound() -> SubstrateError {
        SubstrateError(
            kind: .notFound,
            errorCode: "did_document_not_found",
            message: "The DID has no DID document; its owner writes one with POST /v1/rails/substrate/dids."
        )
    }

    /// The DID already has a document, in the attribute `name`.
    static func didDocumentExists(_ name: String) -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "did_document_exists",
            message: "The DID already has a document, in the attribute \(name.prefix(64)); change its services instead.",
            field: "name"
        )
    }

    /// The attribute that held the document was overwritten with something else since it was found.
    static func didDocumentInvalid() -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "did_document_invalid",
            message: "The attribute holding the DID's document no longer holds one (changed through the attributes API); write it again."
        )
    }

    static func serviceAlreadyExist(_ id: String) -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "service_already_exist",
            message: "The DID document already has a service \(id.prefix(256)).",
            field: "id"
        )
    }

    static func serviceNotFound(_ id: String) -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "service_not_found", message: "The DID document has no service \(id.prefix(256)).")
    }
}
