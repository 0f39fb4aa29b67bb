import HubKernel

/// Why a chain operation that is not a transaction (creating a chain, a grant, a top-up, a
/// cash-out) was refused. A ``HubError``: the kernel's one mapping turns its kind into the HTTP
/// status, so the controllers only pass it on. (Transactions are refused with
/// ``TransactionRejection``; the ledger's own refusals stay ``TransferError``s.)
struct ChainServiceError: HubError, Equatable, CustomStringConvertible {
    var kind: HubErrorKind
    var errorCode: String
    var message: String
    var field: String?

    var description: String { "\(errorCode): \(message)" }

    static func chainIDTaken(_ chainID: UInt64) -> ChainServiceError {
        ChainServiceError(kind: .conflict, errorCode: "chain_id_taken", message: "Chain id \(chainID) is in use on this hub.", field: "chain_id")
    }

    static func chainNotFound(_ chainID: UInt64) -> ChainServiceError {
        ChainServiceError(kind: .notFound, errorCode: "chain_not_found", message: "There is no chain \(chainID) on this hub.")
    }

    /// The chain's asset code names an asset with other fields (created outside this chain).
    static func assetConflict(_ detail: String) -> ChainServiceError {
        ChainServiceError(
            kind: .conflict,
            errorCode: "asset_conflict",
            message: "The chain's asset exists with other fields: \(detail)",
            field: "chain_id"
        )
    }

    /// A grant's or top-up's id sent again with another value of `field`: the ledger's code for
    /// the same mistake with a transfer id.
    static func requestIDReused(field: String) -> ChainServiceError {
        ChainServiceError(
            kind: .invalidField,
            errorCode: TransferError.Code.existsWithDifferentFields.rawValue,
            message: "This id was used before with a different \(field); a retry must repeat the request exactly.",
            field: field
        )
    }

    /// No top-up rate is set: reading the rate finds nothing (`notFound`); buying or cashing out
    /// with it clashes with the chain's state (`conflict`).
    static func noTopUpRate(_ kind: HubErrorKind) -> ChainServiceError {
        ChainServiceError(kind: kind, errorCode: "no_topup_rate", message: "The organiser has set no top-up rate for this chain.")
    }

    /// A management call on a chain this hub only relays: it is managed where it is validated.
    static func chainRelayed(_ chainID: UInt64, upstream: String) -> ChainServiceError {
        ChainServiceError(kind: .conflict, errorCode: "chain_relayed", message: "This hub relays chain \(chainID) from \(upstream); manage it there.")
    }

    /// The proximity check of a chain whose organiser set no host location.
    static let noHostLocation = ChainServiceError(
        kind: .notFound,
        errorCode: "no_host_location",
        message: "This chain's organiser set no host location."
    )

    static let amountNotExact = ChainServiceError(
        kind: .invalidField,
        errorCode: "amount_not_exact",
        message: "The amount does not convert to a whole number of minor units at this rate.",
        field: "amount"
    )
}
