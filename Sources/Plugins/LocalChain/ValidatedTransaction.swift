import ChainKit
import EVMKit

/// A raw transaction that passed every check that needs no state: size, encoding, envelope, this
/// chain's id, signature, and the rail's limits. Nonce and balance are checked against the chain
/// (``TransactionIntake``).
struct ValidatedTransaction: Sendable, Equatable {
    var raw: [UInt8]
    var hash: [UInt8]
    var sender: EthereumAddress
    /// The address called, or for a contract creation the address the contract will have
    /// (keccak-256 of `RLP([sender, nonce])`, cut to 20 bytes): where its value goes either way.
    var recipient: EthereumAddress
    var nonce: UInt64
    var value: UInt128
    var envelope: EthereumTransaction.Envelope
    /// `hash` as the rail stores and answers it (lowercase `0x` hex).
    var hashHex: String
    var isCreation: Bool = false
    /// Whether it has calldata (or initcode).
    var carriesData: Bool = false
    var gasLimit: UInt64 = intrinsicGas
    /// The most it can cost its sender: value plus gas limit × fee cap (saturating at 2^128-1).
    var maxCost: UInt128 = 0

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
        guard let signedFor = transaction.chainID else {
            throw TransactionRejection(
                "missing_chain_id",
                "a pre-EIP-155 transaction names no chain and could be replayed on any; sign with chain id \(chainID)"
            )
        }
        guard signedFor == chainID else {
            throw TransactionRejection("wrong_chain_id", "the transaction is signed for chain \(signedFor); this chain is \(chainID)")
        }
        if transaction.to == nil && transaction.data.count > maxInitcodeBytes {
            throw TransactionRejection(
                "initcode_too_large",
                "max initcode size exceeded: code size \(transaction.data.count), limit \(maxInitcodeBytes)"
            )
        }
        let required = intrinsicGas(of: transaction)
        guard transaction.gasLimit >= required else {
            // What geth answers, so wallets and libraries recognise it.
            throw TransactionRejection(
                "intrinsic_gas_too_low",
                "intrinsic gas too low: have \(transaction.gasLimit), want \(required)"
            )
        }
        if transaction.envelope == .dynamicFee && transaction.maxPriorityFeePerGas > transaction.maxFeePerGas {
            throw TransactionRejection("tip_above_fee_cap", "max priority fee per gas higher than max fee per gas")
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
        let feeCap = transaction.envelope == .dynamicFee ? transaction.maxFeePerGas : transaction.gasPrice
        let (fee, feeOverflow) = feeCap.multipliedReportingOverflow(by: transaction.gasLimit)
        let cost = fee.addingReportingOverflow(transaction.value)
        return ValidatedTransaction(
            raw: raw,
            hash: hash,
            sender: sender,
            recipient: transaction.to ?? contractAddress(sender: sender, nonce: transaction.nonce),
            nonce: transaction.nonce,
            value: transaction.value.low,
            envelope: transaction.envelope,
            hashHex: Hex.encode(hash),
            isCreation: transaction.to == nil,
            carriesData: !transaction.data.isEmpty,
            gasLimit: transaction.gasLimit,
            maxCost: feeOverflow || cost.overflow || cost.partialValue.high != 0 ? .max : cost.partialValue.low
        )
    }

    /// EIP-3860's limit on a creation's initcode.
    static let maxInitcodeBytes = 49_152

    /// The gas a transaction costs before any code runs (21000, 32000 more to create, its data,
    /// access list and initcode words), as EVMKit charges it.
    static func intrinsicGas(of t: EthereumTransaction) -> UInt64 {
        Transaction(
            kind: .legacy,
            sender: .zero,
            to: t.to.map(Address.init),
            nonce: 0,
            gasLimit: 0,
            data: t.data,
            accessList: t.accessList.map { entry in
                Transaction.AccessListEntry(address: Address(entry.address), storageKeys: entry.storageKeys.map { U256(bigEndian: $0) })
            }
        ).intrinsicGas
    }

    /// The address a creation by `sender` with `nonce` gives its contract.
    static func contractAddress(sender: EthereumAddress, nonce: UInt64) -> EthereumAddress {
        try! EthereumAddress(bytes: Array(Keccak256.hash(RLP.encode(.list([.bytes(sender.bytes), .uint(nonce)]))).suffix(20)))
    }
}
