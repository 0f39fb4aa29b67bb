/// Why a transaction was refused. Nothing was stored: the same bytes may be sent again once the
/// cause is gone (a nonce gap filled, a top-up received).
struct TransactionRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable machine code (`wrong_chain_id`, `nonce_too_low`, …).
    var code: String
    var message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code): \(message)" }

    static let maxRawBytes = 8 * 1024
}
