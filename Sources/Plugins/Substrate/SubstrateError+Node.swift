import HubKernel

extension SubstrateError {
    /// A `/node/…` read on a hub with no `node_url`.
    static func nodeNotConfigured() -> SubstrateError {
        SubstrateError(
            kind: .notFound,
            errorCode: "node_not_configured",
            message: "This hub has no peaq node configured (the substrate rail's node_url): its DID registry is offline only."
        )
    }

    /// The configured node did not answer (down, unreachable, or an answer of the wrong shape).
    static func nodeUnavailable(_ reason: String) -> SubstrateError {
        SubstrateError(kind: .unavailable, errorCode: "node_unavailable", message: "The peaq node did not answer: \(reason.prefix(300))")
    }

    /// `?status=` of `GET /anchors` that is no anchor status.
    static func unknownAnchorStatus(_ status: String) -> SubstrateError {
        SubstrateError(
            kind: .invalidField,
            errorCode: "invalid_field",
            message: "status is one of \(DIDAnchors.Status.allCases.map(\.rawValue).joined(separator: ", ")), not \(status.prefix(40)).",
            field: "status"
        )
    }
}

extension SubstrateError {
    /// No anchor with this proof hash among the caller's DIDs.
    static func anchorNotFound() -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "anchor_not_found", message: "None of your DIDs has a change with this proof hash.")
    }

    /// The anchor does not wait for its holder's signature (the hub signs it, or it was sent already).
    static func anchorNotAwaitingSignature() -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "anchor_not_awaiting_signature",
            message: "This change's anchor is not waiting for its holder's signature (status other than holder_signature_required); nothing changed."
        )
    }

    /// `retry` of an anchor that has not failed.
    static func anchorNotFailed() -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "anchor_not_failed",
            message: "Only a failed anchor is retried; this one is still on its way or done. Nothing changed."
        )
    }
}
