/// BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH (warm/cold, EIP-2929) and BLOCKHASH.
extension Machine {
    /// Charges 100 for a warm address, 2600 for a cold one (and warms it).
    @inline(__always)
    func chargeAccess(_ f: inout Frame, _ address: Address) throws(HaltReason) {
        try f.charge(state.warmAccount(address) ? Gas.coldAccountAccess : Gas.warmAccess)
    }

    func balance(_ f: inout Frame) throws(HaltReason) {
        let address = Address(f.peek())
        try chargeAccess(&f, address)
        f.setTop(state.balance(address))
    }

    func extCodeSize(_ f: inout Frame) throws(HaltReason) {
        let address = Address(f.peek())
        try chargeAccess(&f, address)
        f.setTop(U256(state.code(address).count))
    }

    func extCodeHash(_ f: inout Frame) throws(HaltReason) {
        let address = Address(f.peek())
        try chargeAccess(&f, address)
        f.setTop(state.codeHash(address))
    }

    func extCodeCopy(_ f: inout Frame) throws(HaltReason) {
        let address = Address(f.peek())
        let memoryOffset = try f.expandMemory(offset: f.peek(1), size: f.peek(3))
        let size = f.peek(3).int ?? 0
        try f.charge(Gas.copyWord * Gas.words(size))
        try chargeAccess(&f, address)
        _ = f.pop()
        _ = f.pop()
        let sourceOffset = f.pop()
        _ = f.pop()
        f.copyToMemory(state.code(address), sourceOffset: sourceOffset, memoryOffset: memoryOffset, size: size)
    }

    /// The hash of one of the 256 blocks before this one, else zero.
    func blockHash(_ number: U256) -> U256 {
        guard let n = number.uint64, n < block.number, block.number - n <= 256 else { return .zero }
        return block.blockHashes[n] ?? .zero
    }
}
