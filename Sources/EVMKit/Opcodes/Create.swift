/// CREATE and CREATE2: 32000 (static) + memory + 2 per initcode word (EIP-3860) + 6 per word to
/// hash it (CREATE2 only); all but a 64th of the remaining gas goes to the initcode.
extension Machine {
    func create(_ f: inout Frame, isCreate2: Bool) throws(HaltReason) {
        if f.message.isStatic { throw .staticStateChange }
        let value = f.pop()
        let offsetWord = f.pop(), sizeWord = f.pop()
        let salt: U256? = isCreate2 ? f.pop() : nil
        let offset = try f.expandMemory(offset: offsetWord, size: sizeWord)
        let size = sizeWord.int ?? .max
        if size > Gas.maxInitcodeSize { throw .initcodeTooLarge }
        try f.charge(Gas.initcodeWord * Gas.words(size))
        if isCreate2 { try f.charge(Gas.keccak256Word * Gas.words(size)) }
        let initcode = f.memorySlice(offset, size)

        let callGas = f.gas - f.gas / 64
        f.gas -= callGas
        let result = create(
            caller: f.message.target,
            value: value,
            initcode: initcode,
            gas: callGas,
            salt: salt,
            depth: f.message.depth + 1
        )
        f.gas += result.gasLeft
        f.returnData = result.isRevert ? result.output : []
        f.push(result.createdAddress?.word ?? .zero)
    }
}
