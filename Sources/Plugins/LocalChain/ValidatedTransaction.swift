import ChainKit

/// A raw transaction that passed every check that needs no state: size, encoding, envelope, this
/// chain's id, signature, and the rail's limits. Nonce and balance are checked against the chain
/// (``TransactionIntake``).
struct ValidatedTransaction: Sendable, Equatable {
    var raw: [UInt8]
    var hash: [UInt8]
    var sender: EthereumAddress
    var recipient: EthereumAddress
    var nonce: UInt64
    var value: UInt128
    var envelope: EthereumTransaction.Envelope
    /// `hash` as the rail stores and answers it (lowercase `0x` hex).
    var hashHex: String

    /// The gas a plain value transfer uses (Ethereum's intrinsic cost of a transaction with no
    /// data and no access list); a transaction must offer at least this much.
    static let intrinsicGas: UInt64 = 21_000

    /// - Throws: ``TransactionRejection`` naming what is wrong.
    static func validate(_ raw: [UInt8], chainID: UInt64) throws -> ValidatedTransaction {
        guard raw.count <= TransactionRejection.maxRawBytes else {
            throw TransactionRejection(
                "oversized",
                "a transaction here is at most \(TransactionRejection.maxRawBytes) bytes, got \(raw.count)"
            )
        }
        let signed: SignedEthereumTransaction
        do {
            signed = try SignedEthereumTransaction.decode(raw)
        } catch let error as ChainKitError {
            throw TransactionRejection(error.code == .invalidSignature ? "invalid_signature" : "invalid_transaction", error.message)
        }
        let transaction = signed.transaction
        switch transaction.envelope {
        case .legacy, .dynamicFee: break
        case .accessList:
            throw TransactionRejection("unsupported_type", "only EIP-155 legacy and EIP-1559 (type 2) transactions are accepted, not type 1")
        }
        guard let signedFor = transaction.chainID else {
            throw TransactionRejection(
                "missing_chain_id",
                "a pre-EIP-155 transaction names no chain and could be replayed on any; sign with chain id \(chainID)"
            )
        }
        guard signedFor == chainID else {
            throw TransactionRejection("wrong_chain_id", "the transaction is signed for chain \(signedFor); this chain is \(chainID)")
        }
        guard let to = transaction.to else {
            throw TransactionRejection("contract_creation", "this chain has plain value accounts only: contracts cannot be created")
        }
        guard transaction.data.isEmpty else {
            throw TransactionRejection("data_not_supported", "this chain has plain value accounts only: a transaction carries no data")
        }
        guard transaction.gasLimit >= intrinsicGas else {
            // What geth answers, so wallets and libraries recognise it.
            throw TransactionRejection(
                "intrinsic_gas_too_low",
                "intrinsic gas too low: have \(transaction.gasLimit), want \(intrinsicGas)"
            )
        }
        guard transaction.value.high == 0 else {
            throw TransactionRejection("value_too_large", "the value exceeds 2^128-1 minor units")
        }
        let sender: EthereumAddress
        do {
            sender = try signed.sender()
        } catch let error as ChainKitError {
            throw TransactionRejection("invalid_signature", error.message)
        }
        let hash = Keccak256.hash(raw)
        return ValidatedTransaction(
            raw: raw,
            hash: hash,
            sender: sender,
            recipient: to,
            nonce: transaction.nonce,
            value: transaction.value.low,
            envelope: transaction.envelope,
            hashHex: Hex.encode(hash)
        )
    }
}
