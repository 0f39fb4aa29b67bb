/// Applies transactions to a state under one block's rules (Cancun): validation, the fee
/// purchase, execution, the refund, the fee split between burning and the coinbase, and EIP-161's
/// removal of touched empty accounts.
public struct TransactionExecutor: Sendable {
    public var block: BlockEnvironment

    public init(block: BlockEnvironment) { self.block = block }

    /// Runs `transaction` and applies its changes to `state`.
    /// - Parameter blockGasUsed: gas already used by earlier transactions of the block.
    /// - Throws: ``EVMError`` when the transaction is invalid; `state` is then unchanged.
    public func execute(_ transaction: Transaction, on state: inout some EVMState, blockGasUsed: UInt64 = 0) throws(EVMError) -> Receipt {
        let (receipt, changes) = try execute(transaction, reading: state, blockGasUsed: blockGasUsed)
        state.apply(changes)
        return receipt
    }

    /// Runs `transaction` over `state` without changing it; returns the receipt and the changes.
    public func execute(_ tx: Transaction, reading state: some EVMState, blockGasUsed: UInt64 = 0) throws(EVMError) -> (Receipt, StateChanges) {
        let journal = JournaledState(backing: state)
        try validate(tx, journal: journal, blockGasUsed: blockGasUsed)

        let gasPrice = tx.effectiveGasPrice(baseFee: block.baseFee)
        let blobFee = U256(UInt64(tx.blobVersionedHashes.count) * Gas.blobGasPerBlob) &* block.blobBaseFee
        journal.subtractBalance(tx.sender, U256(tx.gasLimit) &* gasPrice &+ blobFee)

        // Warm from the start (EIP-2929, EIP-3651): sender, recipient, precompiles, coinbase, access list.
        journal.warmAccount(tx.sender)
        if let to = tx.to { journal.warmAccount(to) }
        for address in Precompile.addresses { journal.warmAccount(address) }
        journal.warmAccount(block.coinbase)
        for entry in tx.accessList {
            journal.warmAccount(entry.address)
            for key in entry.storageKeys { journal.warmSlot(entry.address, key) }
        }

        let machine = Machine(
            state: journal,
            block: block,
            transaction: TransactionContext(origin: tx.sender, gasPrice: gasPrice, blobHashes: tx.blobVersionedHashes)
        )
        let gas = Int(tx.gasLimit - tx.intrinsicGas)
        let result: FrameResult
        if let to = tx.to {
            journal.setNonce(tx.sender, tx.nonce + 1)
            result = machine.call(
                Message(
                    kind: .call,
                    caller: tx.sender,
                    target: to,
                    codeAddress: to,
                    value: tx.value,
                    input: tx.data,
                    gas: gas,
                    isStatic: false,
                    depth: 0
                )
            )
        } else {
            // create() raises the sender's nonce itself, after deriving the address from the old one.
            result = machine.create(caller: tx.sender, value: tx.value, initcode: tx.data, gas: gas, salt: nil, depth: 0)
        }

        // Refund (capped at a fifth of the gas used, EIP-3529), then pay for what was used.
        var gasLeft = UInt64(max(result.gasLeft, 0))
        let used = tx.gasLimit - gasLeft
        let refund = min(UInt64(max(journal.refund, 0)), used / UInt64(Gas.maxRefundQuotient))
        gasLeft += refund
        let gasUsed = tx.gasLimit - gasLeft
        journal.addBalance(tx.sender, U256(gasLeft) &* gasPrice)
        // The base fee is burnt; the coinbase gets the priority part only.
        journal.addBalance(block.coinbase, U256(gasUsed) &* (gasPrice &- block.baseFee))

        let haltReason: HaltReason?
        if case .halt(let reason) = result.status { haltReason = reason } else { haltReason = nil }
        let receipt = Receipt(
            status: result.isSuccess,
            gasUsed: gasUsed,
            logs: result.isSuccess ? journal.logs : [],
            contractAddress: tx.to == nil && result.isSuccess ? result.createdAddress : nil,
            output: result.output,
            haltReason: haltReason,
            unsupportedPrecompiles: machine.unsupportedPrecompilesCalled
        )
        return (receipt, journal.finalize())
    }

    /// The checks that make a transaction invalid (it cannot be included at all).
    private func validate(_ tx: Transaction, journal: JournaledState, blockGasUsed: UInt64) throws(EVMError) {
        let accountNonce = journal.nonce(tx.sender)
        if accountNonce == .max { throw .nonceIsMax }
        if accountNonce != tx.nonce { throw .nonceMismatch(expected: accountNonce, got: tx.nonce) }
        if !journal.code(tx.sender).isEmpty { throw .senderNotEOA(tx.sender) }
        let available = block.gasLimit >= blockGasUsed ? block.gasLimit - blockGasUsed : 0
        if tx.gasLimit > available { throw .gasAllowanceExceeded(limit: tx.gasLimit, available: available) }
        if tx.hasFeeCap {
            if tx.maxPriorityFeePerGas > tx.maxFeePerGas { throw .priorityFeeGreaterThanMaxFee }
            if tx.maxFeePerGas < block.baseFee { throw .maxFeePerGasBelowBaseFee(maxFee: tx.maxFeePerGas, baseFee: block.baseFee) }
        } else if tx.gasPrice < block.baseFee {
            throw .maxFeePerGasBelowBaseFee(maxFee: tx.gasPrice, baseFee: block.baseFee)
        }
        if tx.kind == .blob {
            if tx.to == nil { throw .invalidBlobTransaction("a blob transaction cannot create a contract") }
            if tx.blobVersionedHashes.isEmpty { throw .invalidBlobTransaction("no blobs") }
            if UInt64(tx.blobVersionedHashes.count) * Gas.blobGasPerBlob > Gas.maxBlobGasPerBlock {
                throw .invalidBlobTransaction("\(tx.blobVersionedHashes.count) blobs exceed the block's 6")
            }
            if tx.blobVersionedHashes.contains(where: { $0.w3 >> 56 != 0x01 }) {
                throw .invalidBlobTransaction("a versioned hash does not start with 0x01")
            }
            if tx.maxFeePerBlobGas < block.blobBaseFee { throw .invalidBlobTransaction("max fee per blob gas below the blob base fee") }
        }
        // The sender must afford the worst case: the whole gas limit at the fee cap, plus the value.
        let feeCap = tx.hasFeeCap ? tx.maxFeePerGas : tx.gasPrice
        var (required, overflow) = U256(tx.gasLimit).multipliedFullWidthReportingOverflow(feeCap)
        var add = required.addingReportingOverflow(tx.value)
        required = add.partialValue
        overflow = overflow || add.overflow
        let blobGas = U256(UInt64(tx.blobVersionedHashes.count) * Gas.blobGasPerBlob)
        let blobMax = blobGas.multipliedFullWidthReportingOverflow(tx.maxFeePerBlobGas)
        add = required.addingReportingOverflow(blobMax.partialValue)
        required = add.partialValue
        overflow = overflow || add.overflow || blobMax.overflow
        let balance = journal.balance(tx.sender)
        if overflow || balance < required { throw .insufficientFunds(required: overflow ? .max : required, balance: balance) }
        let intrinsic = tx.intrinsicGas
        if tx.gasLimit < intrinsic { throw .intrinsicGasTooLow(required: intrinsic, limit: tx.gasLimit) }
        if tx.to == nil && tx.data.count > Gas.maxInitcodeSize { throw .initcodeTooLarge(tx.data.count) }
    }

    /// A call by the protocol itself (e.g. EIP-4788's beacon root), outside any transaction: no
    /// fees, no nonce, no validation, and the system address is not left behind in the state.
    public func systemCall(from caller: Address, to target: Address, data: [UInt8], gasLimit: UInt64 = 30_000_000, on state: inout some EVMState) {
        let journal = JournaledState(backing: state)
        let machine = Machine(state: journal, block: block, transaction: TransactionContext(origin: caller, gasPrice: .zero, blobHashes: []))
        journal.warmAccount(target)
        _ = machine.call(
            Message(
                kind: .call,
                caller: caller,
                target: target,
                codeAddress: target,
                value: .zero,
                input: data,
                gas: Int(gasLimit),
                isStatic: false,
                depth: 0
            )
        )
        state.apply(journal.finalize())
    }

    /// EIP-4788: before the block's transactions, the beacon-roots contract records the parent beacon
    /// block root under the block's timestamp.
    public func applyBeaconRoot(_ root: U256, on state: inout some EVMState) {
        guard state.account(at: Self.beaconRootsAddress).map({ !$0.code.isEmpty }) ?? false else { return }
        systemCall(from: Self.systemAddress, to: Self.beaconRootsAddress, data: root.bigEndianBytes, on: &state)
    }

    /// The caller of system calls (EIP-4788).
    public static let systemAddress = try! Address(hex: "0xfffffffffffffffffffffffffffffffffffffffe")
    /// The beacon-roots contract (EIP-4788).
    public static let beaconRootsAddress = try! Address(hex: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02")
}
