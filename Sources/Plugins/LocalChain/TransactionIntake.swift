import ChainKit
import HubKernel

/// Takes signed transactions into a chain's pool. A transaction is stored (and its
/// `localchain.transaction.accepted` event appended) in one committed write before its hash is
/// returned, so an acknowledged transaction survives a restart and is sealed afterwards.
struct TransactionIntake: Sendable {
    let context: PluginContext
    let configuration: LocalChainConfiguration

    enum Outcome: Sendable, Equatable {
        /// Newly in the pool.
        case accepted(String)
        /// Already pending or sealed (a retry): nothing changed.
        case known(String)

        var hash: String {
            switch self {
            case .accepted(let hash), .known(let hash): hash
            }
        }
    }

    /// Validates `raw` for chain `chainID` and stores it.
    /// - Throws: ``TransactionRejection`` (nothing stored), or `nil`-chain as `chain_not_found`.
    func submit(_ raw: [UInt8], chainID: UInt64) async throws -> Outcome {
        let validated = try ValidatedTransaction.validate(raw, chainID: chainID)
        // A relayed chain is validated elsewhere: the transaction goes upstream.
        if let upstream = try await context.database.read({ try LocalChainStore.chain(chainID, on: $0)?.upstream }) {
            return try await TransactionForwarder.forward(raw, chainID: chainID, upstream: upstream)
        }
        // Signature recovery (above) runs on the caller's task, in parallel with other callers;
        // only the stateful checks and the insert wait for the kernel's writer, which commits
        // many transactions together (group commit).
        let (configuration, source) = (configuration, context.eventSource)
        return try await context.write { tx in
            try Self.store(validated, chainID: chainID, configuration: configuration, source: source, now: tx.now, in: tx)
        }
    }

    /// The stateful checks and the insert, inside the caller's unit of work.
    static func store(
        _ tx: ValidatedTransaction,
        chainID: UInt64,
        configuration: LocalChainConfiguration,
        source: String,
        now: LedgerTimestamp,
        allowValidator: Bool = false,
        in unit: UnitOfWork
    ) throws -> Outcome {
        let connection = unit.connection
        // The chain row first, locked on PostgreSQL: intake and sealing of one chain serialise on it.
        guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
            throw TransactionRejection("chain_not_found", "no chain \(chainID) on this hub")
        }
        let hash = tx.hashHex
        if try LocalChainStore.transaction(chainID: chainID, hash: hash, on: connection) != nil
            || LocalChainStore.poolEntry(chainID: chainID, hash: hash, on: connection) != nil
        {
            return .known(hash)
        }
        guard chain.status == .active else {
            throw TransactionRejection("chain_\(chain.status.rawValue)", "chain \(chainID) is \(chain.status.rawValue) and takes no transactions")
        }
        let isValidator = tx.sender == chain.validator
        if isValidator && !allowValidator {
            throw TransactionRejection("validator_sender", "the validator's transactions are made by the hub (grants, top-ups), not sent")
        }
        if tx.recipient == chain.validator && !allowValidator {
            throw TransactionRejection(
                "validator_recipient",
                "paying the validator would destroy the money; use the chain's cash-out to turn a balance back"
            )
        }
        let account = try LocalChainStore.account(chainID: chainID, address: tx.sender, on: connection)
        let expected = account?.nonce ?? 0
        guard tx.nonce >= expected else {
            throw TransactionRejection("nonce_too_low", "nonce \(tx.nonce) is used; the account's next nonce is \(expected)")
        }
        guard tx.nonce - expected <= configuration.maxNonceGap else {
            throw TransactionRejection(
                "nonce_too_high",
                "nonce \(tx.nonce) is more than \(configuration.maxNonceGap) ahead of the account's next nonce \(expected)"
            )
        }
        let pending = try LocalChainStore.pool(chainID: chainID, sender: tx.sender, on: connection)
        if pending.contains(where: { $0.nonce == tx.nonce }) {
            throw TransactionRejection(
                "nonce_pending",
                "a transaction with nonce \(tx.nonce) is already pending for this account (fees are zero, so there is no replacement)"
            )
        }
        if !isValidator {
            // What the sender has, less what its pending transactions already spend.
            var committed = tx.value
            for entry in pending {
                let (sum, overflow) = committed.addingReportingOverflow(entry.value)
                committed = overflow ? .max : sum
            }
            let balance = account?.balance ?? 0
            guard committed <= balance else {
                throw TransactionRejection(
                    "insufficient_funds",
                    "the account holds \(balance) and its pending transactions with this one spend \(committed)"
                )
            }
        }
        guard try LocalChainStore.poolCount(chainID: chainID, on: connection) < configuration.maxPoolPerChain else {
            throw TransactionRejection("pool_full", "chain \(chainID) has \(configuration.maxPoolPerChain) transactions waiting; retry shortly")
        }
        let entry = PoolEntry(seq: 0, hash: hash, sender: tx.sender, recipient: tx.recipient, nonce: tx.nonce, value: tx.value, raw: tx.raw)
        try LocalChainStore.insert(entry, chainID: chainID, receivedAt: Int64(bitPattern: now.nanoseconds), on: connection)
        try unit.append([LocalChainEvents.accepted(entry, chainID: chainID, source: source, time: now)])
        return .accepted(hash)
    }

    /// The validator's next nonce: after its sealed transactions and those waiting in the pool.
    static func nextValidatorNonce(_ chain: LocalChain, on connection: any SQLConnection) throws -> UInt64 {
        let sealed = try LocalChainStore.account(chainID: chain.chainID, address: chain.validator, on: connection)?.nonce ?? 0
        let pending = try LocalChainStore.pool(chainID: chain.chainID, sender: chain.validator, on: connection)
        return max(sealed, (pending.last?.nonce).map { $0 + 1 } ?? 0)
    }
}
