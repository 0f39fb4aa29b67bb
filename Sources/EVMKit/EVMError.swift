/// Why a transaction or a block cannot be applied at all. (A transaction that runs and fails, such
/// as a revert or running out of gas, is not an error: it is a receipt with status 0.)
public enum EVMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sender's nonce differs from the transaction's.
    case nonceMismatch(expected: UInt64, got: UInt64)
    /// The sender's nonce is 2^64-1 and cannot be incremented (EIP-2681).
    case nonceIsMax
    /// Gas limit below the intrinsic cost of the transaction.
    case intrinsicGasTooLow(required: UInt64, limit: UInt64)
    /// Gas limit above what is left in the block.
    case gasAllowanceExceeded(limit: UInt64, available: UInt64)
    /// The sender cannot pay gasLimit × fee cap + value (+ blob fees).
    case insufficientFunds(required: U256, balance: U256)
    /// The fee cap is below the block's base fee.
    case maxFeePerGasBelowBaseFee(maxFee: U256, baseFee: U256)
    /// The priority fee exceeds the fee cap.
    case priorityFeeGreaterThanMaxFee
    /// The sender has code (EIP-3607).
    case senderNotEOA(Address)
    /// A creation transaction's initcode exceeds 49152 bytes (EIP-3860).
    case initcodeTooLarge(Int)
    /// A blob transaction with no blobs, a creation, or a bad versioned hash (EIP-4844).
    case invalidBlobTransaction(String)
    /// Malformed input to the engine's API (hex, lengths).
    case invalidInput(String)

    public var description: String {
        switch self {
        case .nonceMismatch(let expected, let got): "nonce mismatch: the account's nonce is \(expected), the transaction's \(got)"
        case .nonceIsMax: "the sender's nonce is 2^64-1 (EIP-2681)"
        case .intrinsicGasTooLow(let required, let limit): "intrinsic gas too low: needs \(required), gas limit \(limit)"
        case .gasAllowanceExceeded(let limit, let available): "gas limit \(limit) exceeds the block's remaining \(available)"
        case .insufficientFunds(let required, let balance): "insufficient funds: needs \(required), balance \(balance)"
        case .maxFeePerGasBelowBaseFee(let maxFee, let baseFee): "max fee per gas \(maxFee) is below the base fee \(baseFee)"
        case .priorityFeeGreaterThanMaxFee: "max priority fee per gas exceeds max fee per gas"
        case .senderNotEOA(let address): "sender \(address) has code (EIP-3607)"
        case .initcodeTooLarge(let size): "initcode of \(size) bytes exceeds 49152 (EIP-3860)"
        case .invalidBlobTransaction(let why): "invalid blob transaction: \(why)"
        case .invalidInput(let why): why
        }
    }
}
