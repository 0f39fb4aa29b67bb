import ChainKit
import EVMKit
import HubKernel

/// Decides what a block contains and what it does to the state. Pure apart from the reads of
/// contract code and storage it makes through a ``ContractReader``: the sealer loads the pool and
/// the accounts, this plans, the sealer writes.
///
/// Rules (LokaalPay's flaws fixed): the sender's nonce must be exactly the account's next one
/// (later nonces wait; earlier ones never reach the pool). Every transaction a sender signs runs
/// in EVMKit (Cancun rules, base fee zero, the validator as coinbase): value transfers, contract
/// creation and calls, metered against the chain's block gas limit (a transaction whose gas limit
/// does not fit what is left of the block waits for the next). A transaction that reverts, runs
/// out of gas or cannot pay its value and gas is included all the same with status 0, its nonce
/// used and its gas charged. The validator issues: its transfers (grants, top-ups) create money
/// without running code and debit the asset's issuance account in the ledger, and money that
/// reaches it (cash-outs, a contract paying it, fees at a non-zero gas price) is destroyed and
/// credits that account back, so the validator's own balance stays zero and the chain's balances
/// always sum to the asset's circulation.
enum BlockExecutor {
    struct Included: Sendable, Equatable {
        var entry: PoolEntry
        var status: UInt8
        var gasUsed: UInt64 = ValidatedTransaction.intrinsicGas
        var logs: [LocalChainLog] = []
        /// The contract a creation made (when it succeeded).
        var contractAddress: EthereumAddress? = nil

        var receipt: LocalChainReceipt {
            LocalChainReceipt(transactionHash: (try? Hex.decode(entry.hash)) ?? [], status: status, gasUsed: gasUsed, logs: logs)
        }
    }

    /// Money one transaction moved from one account to another, as the ledger mirrors it.
    struct Movement: Sendable, Equatable {
        var hash: String
        /// The movement's position among its transaction's (the first keeps the transaction's own id).
        var leg: Int
        var from: EthereumAddress
        var to: EthereumAddress
        var amount: UInt128
    }

    /// The block the transactions run in, as the EVM sees it.
    struct Block: Sendable {
        var number: UInt64 = 1
        var timestamp: UInt64 = 0
        var gasLimit: UInt64 = LocalChainConfiguration.defaultBlockGasLimit
        var parentHash: [UInt8] = [UInt8](repeating: 0, count: 32)
        var recentHashes: [UInt64: U256] = [:]
    }

    struct Plan: Sendable {
        var included: [Included] = []
        /// The state after the block, by address: the accounts given, and those the block read
        /// from the store (``ChainWorldState/load(_:)``) when it was given none.
        var state: [EthereumAddress: ChainAccount]
        /// Addresses whose account changed in any way or that are new, sorted.
        var touched: [EthereumAddress] = []
        /// Addresses that did not exist before this block.
        var created: [EthereumAddress] = []
        var contracts = ContractChanges()
        var movements: [Movement] = []
        var gasUsed: UInt64 = 0
    }

    static func plan(
        pool: [PoolEntry],
        state: [EthereumAddress: ChainAccount],
        contracts: ContractReader = .none,
        chainID: UInt64,
        validator: EthereumAddress,
        issuanceAccount: AccountID,
        limit: Int,
        block: Block = Block()
    ) -> Plan {
        var world = ChainWorldState(accounts: state, reader: contracts) { address in
            address == validator ? issuanceAccount : LocalChainIDs.ledgerAccount(chainID: chainID, address: address)
        }
        let executor = TransactionExecutor(
            block: BlockEnvironment(
                number: block.number,
                timestamp: block.timestamp,
                coinbase: Address(validator),
                gasLimit: block.gasLimit,
                baseFee: .zero,
                prevRandao: U256(bigEndian: block.parentHash),
                chainID: U256(chainID),
                blockHashes: block.recentHashes
            )
        )
        var plan = Plan(state: state)
        // Money that vanishes in a transaction is paid to the validator's (issuance) account.
        world.load(validator)
        // Passes in arrival order; each takes the entries whose nonce is now next, so a gap filled
        // by a later arrival lets the waiting ones follow in the same block.
        var remaining = pool
        var progress = true
        while progress && plan.included.count < limit {
            progress = false
            var waiting: [PoolEntry] = []
            for entry in remaining {
                world.load(entry.sender)
                let next = world.accounts[entry.sender]?.nonce ?? 0
                guard plan.included.count < limit, entry.nonce == next else {
                    if entry.nonce > next { waiting.append(entry) }  // below: stale, dropped from consideration
                    continue
                }
                let outcome: (Included, [Movement])?
                if entry.sender == validator || entry.recipient == validator {
                    outcome = issue(entry, validator: validator, gasLeft: block.gasLimit - plan.gasUsed, world: &world)
                } else {
                    outcome = run(entry, executor: executor, validator: validator, blockGasUsed: plan.gasUsed, world: &world)
                }
                guard let (included, movements) = outcome else {
                    waiting.append(entry)  // does not fit in what is left of the block
                    continue
                }
                plan.included.append(included)
                plan.movements += movements
                plan.gasUsed += included.gasUsed
                progress = true
            }
            remaining = waiting
        }
        world.updateCommitments()
        plan.state = world.accounts
        plan.created = world.created
        plan.contracts = world.changes
        plan.touched = world.accounts.keys.filter { world.original($0, given: state) != world.accounts[$0] }
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        return plan
    }

    /// The validator's side of the chain: a grant or top-up from it mints into the recipient (no
    /// code runs), a cash-out to it burns. Plain transfers only (intake refuses anything else to
    /// or from the validator). `nil` when 21000 gas no longer fits the block.
    private static func issue(
        _ entry: PoolEntry,
        validator: EthereumAddress,
        gasLeft: UInt64,
        world: inout ChainWorldState
    ) -> (Included, [Movement])? {
        guard gasLeft >= ValidatedTransaction.intrinsicGas else { return nil }
        let (sender, recipient, value) = (entry.sender, entry.recipient, entry.value)
        world.ensureAccount(sender)
        world.ensureAccount(recipient)
        world.accounts[sender]!.nonce += 1
        let fromValidator = sender == validator
        let toValidator = recipient == validator
        func failed() -> (Included, [Movement]) { (Included(entry: entry, status: 0), []) }
        if !fromValidator && world.accounts[sender]!.balance < value { return failed() }
        if sender == recipient { return (Included(entry: entry, status: 1), []) }
        if !toValidator && world.accounts[recipient]!.balance.addingReportingOverflow(value).overflow { return failed() }
        if !fromValidator { world.accounts[sender]!.balance -= value }
        if !toValidator { world.accounts[recipient]!.balance += value }
        let movements = value == 0 ? [] : [Movement(hash: entry.hash, leg: 0, from: sender, to: recipient, amount: value)]
        return (Included(entry: entry, status: 1), movements)
    }

    /// Runs a sender's transaction in the EVM. `nil` when its gas limit does not fit what is left
    /// of the block.
    private static func run(
        _ entry: PoolEntry,
        executor: TransactionExecutor,
        validator: EthereumAddress,
        blockGasUsed: UInt64,
        world: inout ChainWorldState
    ) -> (Included, [Movement])? {
        guard let transaction = try? evmTransaction(entry) else {
            // Cannot happen for a validated raw; a malformed one uses its nonce and does nothing.
            world.ensureAccount(entry.sender)
            world.accounts[entry.sender]!.nonce += 1
            return (Included(entry: entry, status: 0, gasUsed: 0), [])
        }
        let receipt: Receipt
        let changes: StateChanges
        do {
            (receipt, changes) = try executor.execute(transaction, reading: world, blockGasUsed: blockGasUsed)
        } catch .gasAllowanceExceeded {
            return nil
        } catch {
            // Invalid in Ethereum's sense (most often: it cannot pay its value and gas). Here it is
            // included as failed, as a transfer that cannot be paid always was: nonce used,
            // nothing moved, no gas charged (there was nothing to charge it from).
            world.ensureAccount(entry.sender)
            world.accounts[entry.sender]!.nonce += 1
            return (Included(entry: entry, status: 0, gasUsed: 0), [])
        }
        var before: [EthereumAddress: UInt128] = [:]
        for address in changes.accounts.keys {
            let address = EthereumAddress(address)
            world.load(address)
            before[address] = world.accounts[address]?.balance ?? 0
        }
        world.apply(changes)
        var after: [EthereumAddress: UInt128] = [:]
        for address in before.keys { after[address] = world.accounts[address]?.balance ?? 0 }
        // What reached the validator is destroyed (it holds nothing); the ledger credits issuance.
        if let held = world.accounts[validator]?.balance, held > 0 { world.accounts[validator]!.balance = 0 }
        let included = Included(
            entry: entry,
            status: receipt.status ? 1 : 0,
            gasUsed: receipt.gasUsed,
            logs: receipt.logs.map { LocalChainLog(address: EthereumAddress($0.address), topics: $0.topics.map(\.bigEndianBytes), data: $0.data) },
            contractAddress: receipt.contractAddress.map(EthereumAddress.init)
        )
        return (included, movements(before: before, after: after, hash: entry.hash, burnTo: validator))
    }

    /// The transaction as EVMKit runs it, from the raw the pool holds.
    static func evmTransaction(_ entry: PoolEntry) throws -> Transaction {
        let t = try SignedEthereumTransaction.decode(entry.raw).transaction
        let kind: Transaction.Kind =
            switch t.envelope {
            case .legacy: .legacy
            case .accessList: .accessList
            case .dynamicFee: .dynamicFee
            }
        return Transaction(
            kind: kind,
            sender: Address(entry.sender),
            to: t.to.map(Address.init),
            nonce: t.nonce,
            gasLimit: t.gasLimit,
            value: U256(t.value),
            data: t.data,
            gasPrice: U256(t.gasPrice),
            maxFeePerGas: U256(t.maxFeePerGas),
            maxPriorityFeePerGas: U256(t.maxPriorityFeePerGas),
            accessList: t.accessList.map { entry in
                Transaction.AccessListEntry(address: Address(entry.address), storageKeys: entry.storageKeys.map { U256(bigEndian: $0) })
            }
        )
    }

    /// The balance changes of one transaction as movements between accounts: those that lost
    /// money pay those that gained it, both in address order, so every node derives the same legs.
    /// The EVM conserves value (with a base fee of zero, fees go to the coinbase, the validator)
    /// but for one case: a contract that self-destructs to itself in the transaction that created
    /// it destroys its balance (EIP-6780). What vanished is paid to `burnTo` (the validator, whose
    /// ledger account is the issuance account), as a cash-out is, so the ledger follows the chain.
    static func movements(
        before: [EthereumAddress: UInt128],
        after: [EthereumAddress: UInt128],
        hash: String,
        burnTo: EthereumAddress
    ) -> [Movement] {
        var payers: [(EthereumAddress, UInt128)] = []
        var payees: [(EthereumAddress, UInt128)] = []
        for address in before.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            let (old, new) = (before[address]!, after[address]!)
            if new < old { payers.append((address, old - new)) } else if new > old { payees.append((address, new - old)) }
        }
        let paid = payers.reduce(UInt128(0)) { $0 + $1.1 }
        let received = payees.reduce(UInt128(0)) { $0 + $1.1 }
        if paid > received { payees.append((burnTo, paid - received)) }
        var movements: [Movement] = []
        var (i, j) = (0, 0)
        while i < payers.count && j < payees.count {
            let amount = min(payers[i].1, payees[j].1)
            movements.append(Movement(hash: hash, leg: movements.count, from: payers[i].0, to: payees[j].0, amount: amount))
            payers[i].1 -= amount
            payees[j].1 -= amount
            if payers[i].1 == 0 { i += 1 }
            if payees[j].1 == 0 { j += 1 }
        }
        return movements
    }

    /// The ledger transfers mirroring a plan's movements. A transaction's first movement keeps
    /// the id derived from its hash (a plain payment has exactly one); further ones (value moved
    /// inside contracts) get ids derived from the hash and their position.
    static func ledgerTransfers(_ plan: Plan, asset: AssetCode, chainID: UInt64) -> [TransferRequest] {
        plan.movements.compactMap { movement in
            guard let hash = try? Hex.decode(movement.hash, length: 32) else { return nil }
            return TransferRequest(
                id: movement.leg == 0
                    ? LocalChainIDs.transfer(transactionHash: hash) : LocalChainIDs.transfer(transactionHash: hash, leg: movement.leg),
                action: .post(
                    debit: plan.state[movement.from]!.ledgerAccountID,
                    credit: plan.state[movement.to]!.ledgerAccountID,
                    amount: movement.amount,
                    asset: asset
                ),
                reference: TransferReference(rail: "localchain", type: "transaction", id: movement.hash),
                metadata: ["chain_id": String(chainID)]
            )
        }
    }
}
