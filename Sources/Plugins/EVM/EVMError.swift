import HubKernel

/// Why the EVM rail refused a request or could not reach a chain. A ``HubError``: the kernel maps
/// its kind to the HTTP status, so controllers only pass it on.
struct EVMError: HubError, Equatable, CustomStringConvertible {
    var kind: HubErrorKind
    var errorCode: String
    var message: String
    var field: String?

    var description: String { "\(errorCode): \(message)" }

    static func unknownChain(_ id: String) -> EVMError {
        EVMError(kind: .notFound, errorCode: "unknown_chain", message: "This hub's EVM rail has no chain '\(id.prefix(32))'.", field: "chain")
    }

    /// The chain's node did not answer, or answered with something that is not JSON-RPC.
    static func chainUnavailable(_ chain: String, _ detail: String) -> EVMError {
        EVMError(kind: .unavailable, errorCode: "chain_unavailable", message: "Chain '\(chain)' cannot be reached: \(detail)")
    }

    /// The node answered the call with a JSON-RPC error.
    static func nodeError(_ chain: String, code: Int, message: String) -> EVMError {
        EVMError(kind: .refused, errorCode: "node_error", message: "Chain '\(chain)' refused the call (\(code)): \(message.prefix(300))")
    }

    /// The node's chain id is not the configured one: a misconfiguration that would sign
    /// transactions for another network.
    static func wrongChainID(_ chain: String, expected: UInt64, found: UInt64) -> EVMError {
        EVMError(
            kind: .unavailable,
            errorCode: "wrong_chain_id",
            message: "Chain '\(chain)' is configured as chain id \(expected) but its node reports \(found)."
        )
    }

    static func accountNotFound(_ address: String) -> EVMError {
        EVMError(kind: .notFound, errorCode: "account_not_found", message: "No custodial account \(address.prefix(42)) of yours on this chain.")
    }

    static func invalid(_ field: String, _ message: String) -> EVMError {
        EVMError(kind: .invalidField, errorCode: "invalid_field", message: message, field: field)
    }
}
