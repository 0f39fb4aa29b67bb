import ChainKit
import HubKernel

/// Top-ups (another kernel asset in, chain currency granted) and cash-outs (chain currency burnt,
/// the other asset paid back), both through the ledger and both atomic with the chain side.
extension ChainService {
    func setTopUpRate(_ rate: TopUpRate, chainID: UInt64) async throws {
        try await context.write { try LocalChainStore.setTopUpRate(rate, chainID: chainID, on: $0.connection) }
    }

    func topUpRate(chainID: UInt64) async throws -> TopUpRate? {
        try await context.database.read { try LocalChainStore.topUpRate(chainID: chainID, on: $0) }
    }

    /// Pays `cost` of the rate's asset from `payer` into the collection account and queues a
    /// validator grant of `amount` to `to`, in one ledger transaction: either both happen or
    /// neither. The transfer id is the caller's: a retry with the same fields answers the first
    /// top-up and changes nothing; with other fields it is refused (``ChainRequest``).
    func topUp(chainID: UInt64, to: EthereumAddress, amount: UInt128, payer: AccountID, transferID: TransferID) async throws
        -> (hash: String, cost: UInt128, rate: TopUpRate)
    {
        let (vault, configuration, source) = (vault, configuration, context.eventSource)
        let result = try await context.write { tx -> (String, UInt128, TopUpRate) in
            let connection = tx.connection
            guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
                throw TransactionRejection.chainNotFound(chainID)
            }
            guard let rate = try LocalChainStore.topUpRate(chainID: chainID, on: connection) else { throw ChainServiceError.noTopUpRate(.conflict) }
            guard let cost = rate.cost(of: amount), cost > 0 else { throw ChainServiceError.amountNotExact }
            let fields = ["to": to.description, "amount": String(amount), "from_account_id": payer.description]
            if let prior = try LocalChainStore.request(.topup, id: transferID.description, chainID: chainID, on: connection) {
                if let field = prior.firstDifference(from: fields) { throw ChainServiceError.requestIDReused(field: field) }
                return (prior.hash, cost, rate)
            }
            let paid = try tx.submit([
                TransferRequest(
                    id: transferID,
                    action: .post(debit: payer, credit: rate.collectionAccountID, amount: cost, asset: rate.asset),
                    reference: TransferReference(rail: "localchain", type: "topup", id: "\(chainID):\(to)"),
                    metadata: ["chain_id": String(chainID), "to": to.description, "amount": String(amount)]
                )
            ])[0]
            switch paid {
            case .created: break
            case .exists: throw TransferError(.existsWithDifferentFields, "this top-up id was used already", field: "id")
            case .failed(let error): throw error
            }
            let outcome = try Self.queueValidatorTransfer(
                chain,
                to: to,
                amount: amount,
                vault: vault,
                configuration: configuration,
                source: source,
                in: tx
            )
            try LocalChainStore.insert(
                ChainRequest(kind: .topup, id: transferID.description, fields: fields, hash: outcome.hash),
                chainID: chainID,
                on: connection
            )
            return (outcome.hash, cost, rate)
        }
        return (result.0, result.1, result.2)
    }

    /// Takes an attendee's signed transfer of chain currency to the validator (a burn), and holds
    /// its price from the collection account for `payout`, in one transaction. The sealer posts the
    /// hold when the burn succeeds and voids it when the burn fails, so the payout happens exactly
    /// when the money left the chain. The burn's sender must have authorised `payout` with
    /// `payoutSignature` (``CashOutAuthorisation``): whoever submits the burn, the money goes where
    /// its owner said.
    func cashOut(
        chainID: UInt64,
        raw: [UInt8],
        payout: AccountID,
        payoutSignature: [UInt8]
    ) async throws -> (hash: String, pay: UInt128, rate: TopUpRate) {
        let validated = try ValidatedTransaction.validate(raw, chainID: chainID)
        try CashOutAuthorisation.verify(payoutSignature, burn: validated, chainID: chainID, payout: payout)
        let (configuration, source) = (configuration, context.eventSource)
        let result = try await context.write { tx -> (String, UInt128, TopUpRate) in
            let connection = tx.connection
            guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
                throw TransactionRejection.chainNotFound(chainID)
            }
            guard let rate = try LocalChainStore.topUpRate(chainID: chainID, on: connection) else { throw ChainServiceError.noTopUpRate(.conflict) }
            guard validated.recipient == chain.validator else {
                throw TransactionRejection("not_a_cash_out", "a cash-out is a transfer to the chain's validator \(chain.validator.checksummed)")
            }
            guard validated.sender != chain.validator else {
                throw TransactionRejection("validator_sender", "the validator does not cash out")
            }
            guard let pay = rate.cost(of: validated.value), pay > 0 else { throw ChainServiceError.amountNotExact }
            let outcome = try TransactionIntake.store(
                validated,
                chainID: chainID,
                configuration: configuration,
                source: source,
                allowValidator: true,
                in: tx
            )
            guard case .accepted(let hash) = outcome else { return (outcome.hash, pay, rate) }
            let holdID = LocalChainIDs.cashOutHold(transactionHash: validated.hash)
            let held = try tx.submit([
                TransferRequest(
                    id: holdID,
                    action: .hold(debit: rate.collectionAccountID, credit: payout, amount: pay, asset: rate.asset, timeoutSeconds: 0),
                    reference: TransferReference(rail: "localchain", type: "cashout", id: hash),
                    metadata: ["chain_id": String(chainID)]
                )
            ])[0]
            if case .failed(let error) = held { throw error }
            try LocalChainStore.insert(
                CashOut(hash: hash, holdID: holdID, payoutAccountID: payout, payAmount: pay, state: "pending"),
                chainID: chainID,
                on: connection
            )
            return (hash, pay, rate)
        }
        return (result.0, result.1, result.2)
    }

    /// Signs a transfer from the validator with its key and queues it (grants and top-ups).
    static func queueValidatorTransfer(
        _ chain: LocalChain,
        to: EthereumAddress,
        amount: UInt128,
        vault: ValidatorKeyVault,
        configuration: LocalChainConfiguration,
        source: String,
        in unit: UnitOfWork
    ) throws -> TransactionIntake.Outcome {
        let nonce = try TransactionIntake.nextValidatorNonce(chain, on: unit.connection)
        let key = try vault.open(chain.sealedKey, chainID: chain.chainID)
        let signed = try EthereumTransaction(
            envelope: .legacy,
            chainID: chain.chainID,
            nonce: nonce,
            gasPrice: .zero,
            gasLimit: 21_000,
            to: to,
            value: UInt256(amount)
        ).signed(privateKey: key)
        let validated = try ValidatedTransaction.validate(signed.raw, chainID: chain.chainID)
        return try TransactionIntake.store(
            validated,
            chainID: chain.chainID,
            configuration: configuration,
            source: source,
            allowValidator: true,
            in: unit
        )
    }
}
