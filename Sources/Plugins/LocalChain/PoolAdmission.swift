import ChainKit

/// The pool's rules for a transaction that passed every stateless check: whether it is new, and
/// whether the chain and its sender allow it (status, nonce, funds, pool size).
///
/// Pure: it holds the chain's state as one unit of work read it (``TransactionIntake`` loads it
/// with one query per kind for a whole batch) and updates it with every admission, so the second
/// transaction of a batch sees the first as pending, exactly as if each had its own unit.
struct PoolAdmission {
    /// What a sender has and has promised: its sealed nonce and balance, and its pending
    /// transactions' nonces and total value.
    struct Sender: Equatable {
        var nonce: UInt64 = 0
        var balance: UInt128 = 0
        var pendingNonces: Set<UInt64> = []
        /// Saturates at `UInt128.max`: a sum past it is more than any balance anyway.
        var pendingValue: UInt128 = 0
    }

    enum Decision: Equatable {
        /// New: goes into the pool.
        case accept
        /// Already pending or sealed (a retry): nothing changes.
        case known
    }

    let chain: LocalChain
    let maxNonceGap: UInt64
    let maxPool: Int
    /// Hashes already pending or sealed (at least those of the batch), and those admitted since.
    private(set) var known: Set<String>
    private(set) var senders: [EthereumAddress: Sender]
    private(set) var poolCount: Int

    init(chain: LocalChain, configuration: LocalChainConfiguration, known: Set<String>, senders: [EthereumAddress: Sender], poolCount: Int) {
        self.chain = chain
        self.maxNonceGap = configuration.maxNonceGap
        self.maxPool = configuration.maxPoolPerChain
        self.known = known
        self.senders = senders
        self.poolCount = poolCount
    }

    /// Decides on `tx` and, when it is accepted, counts it as pending.
    /// - Parameter allowValidator: the hub's own transactions (grants, top-ups, cash-outs) may
    ///   come from or go to the validator; a sent one may not.
    /// - Throws: ``TransactionRejection``; the state is then unchanged.
    mutating func admit(_ tx: ValidatedTransaction, allowValidator: Bool = false) throws(TransactionRejection) -> Decision {
        let chainID = chain.chainID
        if known.contains(tx.hashHex) { return .known }
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
        if isValidator || tx.recipient == chain.validator {
            // The hub's own transfers are issued without running code (``BlockExecutor``).
            guard !tx.isCreation, !tx.carriesData else {
                throw TransactionRejection("validator_contract", "the validator's transfers carry no data and create no contract")
            }
        }
        guard tx.gasLimit <= chain.blockGasLimit else {
            // geth's words.
            throw TransactionRejection("gas_limit_exceeded", "exceeds block gas limit: gas \(tx.gasLimit), block limit \(chain.blockGasLimit)")
        }
        var sender = senders[tx.sender] ?? Sender()
        guard tx.nonce >= sender.nonce else {
            throw TransactionRejection("nonce_too_low", "nonce \(tx.nonce) is used; the account's next nonce is \(sender.nonce)")
        }
        // The gap bounds what a sender may park in the pool. The hub numbers its own
        // transactions (grants, top-ups) itself, one after another, so they leave no gap however
        // many wait: an organiser granting a whole event at once is not refused.
        guard tx.nonce - sender.nonce <= maxNonceGap || (isValidator && allowValidator) else {
            throw TransactionRejection(
                "nonce_too_high",
                "nonce \(tx.nonce) is more than \(maxNonceGap) ahead of the account's next nonce \(sender.nonce)"
            )
        }
        if sender.pendingNonces.contains(tx.nonce) {
            throw TransactionRejection(
                "nonce_pending",
                "a transaction with nonce \(tx.nonce) is already pending for this account (fees are zero, so there is no replacement)"
            )
        }
        // What it may cost: its value, plus its gas at its fee cap when that is not zero (fees are
        // zero unless the sender offers more). Pending ones count by value.
        let (sum, overflow) = sender.pendingValue.addingReportingOverflow(max(tx.value, tx.maxCost))
        let committed = overflow ? UInt128.max : sum
        // The validator issues the currency: what it sends is not limited by a balance.
        if !isValidator {
            guard committed <= sender.balance else {
                throw TransactionRejection(
                    "insufficient_funds",
                    "the account holds \(sender.balance) and its pending transactions with this one spend \(committed)"
                )
            }
        }
        guard poolCount < maxPool else {
            throw TransactionRejection("pool_full", "chain \(chainID) has \(maxPool) transactions waiting; retry shortly")
        }
        sender.pendingNonces.insert(tx.nonce)
        sender.pendingValue = committed
        senders[tx.sender] = sender
        known.insert(tx.hashHex)
        poolCount += 1
        return .accept
    }
}
