import HubKernel

/// Why a transaction (or a chain operation) was refused. Nothing was stored: the same bytes may
/// be sent again once the cause is gone (a nonce gap filled, a top-up received). A ``HubError``:
/// the kernel turns its kind into the HTTP status and the JSON-RPC error code, in one place.
struct TransactionRejection: HubError, Equatable, CustomStringConvertible {
    /// A stable machine code (`wrong_chain_id`, `nonce_too_low`, …).
    var code: String
    var message: String
    var kind: HubErrorKind

    /// `kind` defaults by code: an unknown chain is not found, anything else is refused by the
    /// chain's rules.
    init(_ code: String, _ message: String, kind: HubErrorKind? = nil) {
        self.code = code
        self.message = message
        self.kind = kind ?? (code == "chain_not_found" ? .notFound : .refused)
    }

    var errorCode: String { code }
    var description: String { "\(code): \(message)" }

    static func chainNotFound(_ chainID: UInt64) -> TransactionRejection {
        TransactionRejection("chain_not_found", "There is no chain \(chainID) on this hub.")
    }

    /// What geth's pool takes at most (128 KiB): room for a contract's largest initcode (48 KiB) as data.
    static let maxRawBytes = 128 * 1024
}
