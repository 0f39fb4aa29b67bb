import ChainKit
import Foundation
import HubKernel
import Logging

/// Replaces a transaction that an external chain's node holds but does not include (its gas
/// price fell below what blocks take): the same transaction, nonce and all, signed again with a
/// higher gas price, so it takes the original's place and can never run twice. The one it
/// replaced is kept (`evm_transaction_attempts`), since a block may still include it instead:
/// the tracker looks for every attempt's receipt, and the operation settles on whichever is
/// included.
struct TransactionReplacer: Sendable {
    let context: PluginContext
    let accounts: CustodialAccounts
    let contracts: MarketplaceContracts

    /// Nodes take a replacement only with a gas price at least 10 % higher (geth's default price
    /// bump); an eighth more, plus one, clears that after integer rounding.
    static func bumped(_ price: UInt256) -> UInt256 {
        price.addingReportingOverflow(price.quotientAndRemainder(dividingBy: 8).quotient).partialValue.addingReportingOverflow(UInt256(1))
            .partialValue
    }

    /// The key of `address` on `chain`: the platform account's or a custodial account's.
    func key(for address: EthereumAddress, on chain: EVMChainSettings) async throws -> [UInt8]? {
        let platform = try await contracts.platformKey(chain)
        if platform.address == address { return platform.key }
        return try await accounts.privateKey(address: address, chain: chain.id)
    }

    func replace(_ operation: OperationTracker.Pending, chain: EVMChainSettings, client: ChainClient) async throws {
        let original = try SignedEthereumTransaction.decode(operation.raw)
        let sender = try EthereumAddress(operation.from)
        guard let key = try await key(for: sender, on: chain) else {
            context.logger.warning("evm: a stuck transaction's sender has no key here", metadata: ["operation": "\(operation.id)"])
            return
        }
        var transaction = original.transaction
        let market = UInt256(try await client.quantity("eth_gasPrice"))
        transaction.gasPrice = max(Self.bumped(transaction.gasPrice), market)
        let replacement = try transaction.signed(privateKey: key)
        let gasPrice = transaction.gasPrice.description
        let hash = Hex.encode(replacement.hash)
        let replaced = try await context.write { unit -> Bool in
            // Only the tracker that still sees the original replaces it: instances tracking
            // together replace once.
            let changed = try unit.connection.execute(
                """
                UPDATE evm_operations SET tx_hash = \(hash), raw = \(replacement.raw), updated_at = \(unit.now) \
                WHERE id = \(operation.id) AND state = 'pending' AND tx_hash = \(operation.txHash)
                """
            )
            guard changed == 1 else { return false }
            try unit.connection.execute(
                """
                INSERT INTO evm_transaction_attempts (operation_id, tx_hash, raw, gas_price, replaced_at) \
                VALUES (\(operation.id), \(operation.txHash), \(operation.raw), \(original.transaction.gasPrice.description), \(unit.now))
                """
            )
            guard let stored = try EVMOperation.find(operation.id, on: unit.connection) else { return true }
            try unit.emit(
                EVMEvents.operationReplaced,
                subject: operation.id,
                data: EVMEvents.ReplacementData(operation: stored, replacedTxHash: operation.txHash, gasPrice: gasPrice)
            )
            return true
        }
        guard replaced else { return }
        context.logger.info(
            "evm: replaced a stuck transaction",
            metadata: ["operation": "\(operation.id)", "replaced": "\(operation.txHash)", "by": "\(hash)"]
        )
        // Stored first, so a failed send is retried by the tracker like any transaction the node lost.
        _ = try? await client.call("eth_sendRawTransaction", [Hex.encode(replacement.raw)])
    }
}
