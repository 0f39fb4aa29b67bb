import ChainKit
import HubKernel

/// Decides what a block contains and what it does to the state. Pure: the sealer loads the pool
/// and the state, this plans, the sealer writes.
///
/// Rules (LokaalPay's flaws fixed): the sender's nonce must be exactly the account's next one
/// (later nonces wait; earlier ones never reach the pool); the balance is checked here, at
/// execution, and a transfer that cannot be paid fails (receipt status 0, nonce used, nothing
/// moved); a recipient that does not exist yet is created. The validator issues: its transfers
/// (grants, top-ups) create money and debit the asset's issuance account in the ledger, and money
/// sent to it (cash-outs) is destroyed and credits that account back, so the validator's own
/// balance stays zero and the chain's balances always sum to the asset's circulation.
enum BlockExecutor {
    struct Included: Sendable, Equatable {
        var entry: PoolEntry
        var status: UInt8
    }

    struct Plan: Sendable {
        var included: [Included] = []
        /// The whole state after the block, by address.
        var state: [EthereumAddress: ChainAccount]
        /// Addresses whose nonce or balance changed, in first-touched order.
        var touched: [EthereumAddress] = []
        /// Addresses that did not exist before this block.
        var created: [EthereumAddress] = []
    }

    static func plan(
        pool: [PoolEntry],
        state: [EthereumAddress: ChainAccount],
        chainID: UInt64,
        validator: EthereumAddress,
        issuanceAccount: AccountID,
        limit: Int
    ) -> Plan {
        var plan = Plan(state: state)
        var touchedSet = Set<EthereumAddress>()
        func touch(_ address: EthereumAddress) {
            if plan.state[address] == nil {
                plan.state[address] = ChainAccount(
                    address: address,
                    nonce: 0,
                    balance: 0,
                    ledgerAccountID: address == validator ? issuanceAccount : LocalChainIDs.ledgerAccount(chainID: chainID, address: address)
                )
                plan.created.append(address)
            }
            if touchedSet.insert(address).inserted { plan.touched.append(address) }
        }
        // Passes in arrival order; each takes the entries whose nonce is now next, so a gap filled
        // by a later arrival lets the waiting ones follow in the same block.
        var remaining = pool
        var progress = true
        while progress && plan.included.count < limit {
            progress = false
            var waiting: [PoolEntry] = []
            for entry in remaining {
                let next = plan.state[entry.sender]?.nonce ?? 0
                guard plan.included.count < limit, entry.nonce == next else {
                    if entry.nonce > next { waiting.append(entry) }  // below: stale, dropped from consideration
                    continue
                }
                touch(entry.sender)
                touch(entry.recipient)
                plan.included.append(Included(entry: entry, status: execute(entry, validator: validator, state: &plan.state)))
                progress = true
            }
            remaining = waiting
        }
        return plan
    }

    /// Applies one transfer; returns its receipt status.
    private static func execute(_ entry: PoolEntry, validator: EthereumAddress, state: inout [EthereumAddress: ChainAccount]) -> UInt8 {
        let (sender, recipient, value) = (entry.sender, entry.recipient, entry.value)
        state[sender]!.nonce += 1
        let fromValidator = sender == validator
        let toValidator = recipient == validator
        if !fromValidator && state[sender]!.balance < value { return 0 }
        if sender == recipient { return 1 }
        if !toValidator && state[recipient]!.balance.addingReportingOverflow(value).overflow { return 0 }
        if !fromValidator { state[sender]!.balance -= value }
        if !toValidator { state[recipient]!.balance += value }
        return 1
    }

    /// The ledger transfers mirroring the successful transfers of a plan. A transfer to oneself
    /// moves nothing and has none (the ledger refuses equal accounts).
    static func ledgerTransfers(_ plan: Plan, asset: AssetCode, chainID: UInt64) -> [TransferRequest] {
        plan.included.compactMap { included in
            let entry = included.entry
            guard included.status == 1, entry.value > 0, entry.sender != entry.recipient else { return nil }
            let debit = plan.state[entry.sender]!.ledgerAccountID
            let credit = plan.state[entry.recipient]!.ledgerAccountID
            guard let hash = try? Hex.decode(entry.hash, length: 32) else { return nil }
            return TransferRequest(
                id: LocalChainIDs.transfer(transactionHash: hash),
                action: .post(debit: debit, credit: credit, amount: entry.value, asset: asset),
                reference: TransferReference(rail: "localchain", type: "transaction", id: entry.hash),
                metadata: ["chain_id": String(chainID)]
            )
        }
    }
}
