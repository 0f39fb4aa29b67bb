import ChainKit

/// Runs the frames of one transaction: message calls, contract creation and precompiles over a
/// ``JournaledState``. Each frame's state changes are reverted exactly when it fails or reverts.
///
/// Not `Sendable`: one transaction runs on one thread; a new machine serves the next.
final class Machine {
    let state: JournaledState
    let block: BlockEnvironment
    let transaction: TransactionContext
    /// One 1024-word stack per call depth, allocated on first use and reused by sibling frames.
    private var stacks: [UnsafeMutablePointer<U256>] = []
    /// JUMPDEST tables of deployed code by address (deployed code never changes once set).
    /// JUMPDEST tables by code address, with the code they were made from: a revert can undo a
    /// deployment and a later one put other code at the same address.
    private var jumpdestCache: [Address: (code: [UInt8], table: [UInt8])] = [:]
    /// Precompiles this engine does not implement that a frame called (the conformance report names them).
    private(set) var unsupportedPrecompilesCalled: Set<UInt8> = []

    init(state: JournaledState, block: BlockEnvironment, transaction: TransactionContext) {
        self.state = state
        self.block = block
        self.transaction = transaction
    }

    deinit {
        for stack in stacks { stack.deallocate() }
    }

    private func stack(depth: Int) -> UnsafeMutablePointer<U256> {
        while stacks.count <= depth {
            stacks.append(UnsafeMutablePointer<U256>.allocate(capacity: Gas.stackLimit))
        }
        return stacks[depth]
    }

    // MARK: Message calls

    /// Runs a message call (CALL, CALLCODE, DELEGATECALL, STATICCALL or a transaction's call).
    func call(_ message: Message) -> FrameResult {
        if message.depth > Gas.maxCallDepth { return .rejected(gas: message.gas) }
        if message.kind == .call || message.kind == .callCode, !message.value.isZero,
            state.balance(message.caller) < message.value
        {
            return .rejected(gas: message.gas)
        }
        let snapshot = state.snapshot()
        let precompile = Precompile(address: message.codeAddress)
        switch message.kind {
        case .call:
            // A zero-value call to nothing creates nothing and touches nothing.
            if precompile == nil && message.value.isZero && !state.exists(message.target) {
                return FrameResult(status: .success, gasLeft: message.gas, output: [])
            }
            state.subtractBalance(message.caller, message.value)
            state.addBalance(message.target, message.value)
        case .staticCall:
            state.touch(message.target)
        case .callCode, .delegateCall:
            break
        }
        var result: FrameResult
        if let precompile {
            result = runPrecompile(precompile, message)
        } else {
            let code = state.code(message.codeAddress)
            if code.isEmpty { return FrameResult(status: .success, gasLeft: message.gas, output: []) }
            let jumpdests: [UInt8]
            if let cached = jumpdestCache[message.codeAddress], cached.code == code {
                jumpdests = cached.table
            } else {
                jumpdests = Frame.analyzeJumpdests(code)
                jumpdestCache[message.codeAddress] = (code, jumpdests)
            }
            result = execute(message, code: code, jumpdests: jumpdests)
        }
        if !result.isSuccess {
            state.revert(to: snapshot)
            if !result.isRevert { result.gasLeft = 0 }
        }
        return result
    }

    private func runPrecompile(_ precompile: Precompile, _ message: Message) -> FrameResult {
        switch precompile.run(input: message.input, gas: message.gas) {
        case .success(let output, let gasUsed):
            return FrameResult(status: .success, gasLeft: message.gas - gasUsed, output: output)
        case .failure(let reason):
            if case .unsupportedPrecompile(let number) = reason { unsupportedPrecompilesCalled.insert(number) }
            return FrameResult(status: .halt(reason), gasLeft: 0, output: [])
        }
    }

    /// Runs code in a new frame.
    func execute(_ message: Message, code: [UInt8], jumpdests: [UInt8]) -> FrameResult {
        var frame = Frame(message: message, code: code, jumpdests: jumpdests, stack: stack(depth: message.depth))
        switch run(&frame) {
        case .stop: return FrameResult(status: .success, gasLeft: frame.gas, output: [])
        case .returned(let output): return FrameResult(status: .success, gasLeft: frame.gas, output: output)
        case .reverted(let output): return FrameResult(status: .revert, gasLeft: frame.gas, output: output)
        case .halted(let reason): return FrameResult(status: .halt(reason), gasLeft: 0, output: [])
        }
    }

    // MARK: Contract creation

    /// CREATE's address: keccak256(rlp([sender, nonce]))[12:].
    static func createAddress(sender: Address, nonce: UInt64) -> Address {
        let encoded = RLP.encode(.list([.bytes(sender.bytes), .uint(nonce)]))
        return Address(U256(bigEndian: Keccak256.hash(encoded).suffix(20)))
    }

    /// CREATE2's address: keccak256(0xff ‖ sender ‖ salt ‖ keccak256(initcode))[12:].
    static func create2Address(sender: Address, salt: U256, initcode: [UInt8]) -> Address {
        let preimage = [0xFF] + sender.bytes + salt.bigEndianBytes + Keccak256.hash(initcode)
        return Address(U256(bigEndian: Keccak256.hash(preimage).suffix(20)))
    }

    /// Creates a contract: runs `initcode` and deploys what it returns.
    /// - Parameter salt: CREATE2's salt; `nil` for CREATE (and creation transactions).
    func create(caller: Address, value: U256, initcode: [UInt8], gas: Int, salt: U256?, depth: Int) -> FrameResult {
        if depth > Gas.maxCallDepth { return .rejected(gas: gas) }
        if state.balance(caller) < value { return .rejected(gas: gas) }
        let nonce = state.nonce(caller)
        if nonce == .max { return .rejected(gas: gas) }
        state.setNonce(caller, nonce + 1)
        let address =
            salt.map { Self.create2Address(sender: caller, salt: $0, initcode: initcode) }
            ?? Self.createAddress(sender: caller, nonce: nonce)
        // Warmed before the snapshot: the address stays warm even if the creation fails (EIP-2929).
        state.warmAccount(address)
        if state.nonce(address) != 0 || !state.code(address).isEmpty || state.hasStorage(address) {
            return FrameResult(status: .halt(.addressCollision), gasLeft: 0, output: [], createdAddress: nil)
        }
        let snapshot = state.snapshot()
        state.createContract(address)
        state.subtractBalance(caller, value)
        state.addBalance(address, value)

        let message = Message(
            kind: .call,
            caller: caller,
            target: address,
            codeAddress: address,
            value: value,
            input: [],
            gas: gas,
            isStatic: false,
            depth: depth
        )
        var result =
            initcode.isEmpty
            ? FrameResult(status: .success, gasLeft: gas, output: [])
            : execute(message, code: initcode, jumpdests: Frame.analyzeJumpdests(initcode))
        if result.isSuccess {
            let code = result.output
            let depositCost = code.count * Gas.codeDepositByte
            if code.count > Gas.maxCodeSize {
                result = FrameResult(status: .halt(.codeTooLarge), gasLeft: 0, output: [])
            } else if code.first == 0xEF {
                result = FrameResult(status: .halt(.invalidCodePrefix), gasLeft: 0, output: [])
            } else if depositCost > result.gasLeft {
                result = FrameResult(status: .halt(.outOfGas), gasLeft: 0, output: [])
            } else {
                result.gasLeft -= depositCost
                state.setCode(address, code)
                result.output = []
                result.createdAddress = address
                return result
            }
        }
        state.revert(to: snapshot)
        if !result.isRevert { result.gasLeft = 0 }
        return result
    }
}
