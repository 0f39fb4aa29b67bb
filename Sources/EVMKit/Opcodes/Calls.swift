/// CALL, CALLCODE, DELEGATECALL and STATICCALL: access cost, value and new-account surcharges,
/// memory for both the input and the output range, then the 63/64 rule (EIP-150) and the stipend.
extension Machine {
    func call(_ f: inout Frame, kind: CallKind) throws(HaltReason) {
        let requestedGas = f.pop()
        let address = Address(f.pop())
        let value = (kind == .call || kind == .callCode) ? f.pop() : .zero
        let inputOffsetWord = f.pop(), inputSizeWord = f.pop()
        let outputOffsetWord = f.pop(), outputSizeWord = f.pop()
        if kind == .call && f.message.isStatic && !value.isZero { throw .staticStateChange }

        // Everything but the forwarded gas is charged first; the 63/64 rule applies to what is left.
        let inputOffset = try f.expandMemory(offset: inputOffsetWord, size: inputSizeWord)
        let outputOffset = try f.expandMemory(offset: outputOffsetWord, size: outputSizeWord)
        try chargeAccess(&f, address)
        if !value.isZero {
            try f.charge(Gas.callValue)
            if kind == .call && state.isDead(address) { try f.charge(Gas.newAccount) }
        }
        let available = f.gas - f.gas / 64
        var callGas = requestedGas.int.map { min($0, available) } ?? available
        try f.charge(callGas)
        if !value.isZero { callGas += Gas.callStipend }

        let inputSize = inputSizeWord.int ?? 0
        let message: Message
        let current = f.message
        switch kind {
        case .call:
            message = Message(
                kind: .call,
                caller: current.target,
                target: address,
                codeAddress: address,
                value: value,
                input: f.memorySlice(inputOffset, inputSize),
                gas: callGas,
                isStatic: current.isStatic,
                depth: current.depth + 1
            )
        case .callCode:
            message = Message(
                kind: .callCode,
                caller: current.target,
                target: current.target,
                codeAddress: address,
                value: value,
                input: f.memorySlice(inputOffset, inputSize),
                gas: callGas,
                isStatic: current.isStatic,
                depth: current.depth + 1
            )
        case .delegateCall:
            message = Message(
                kind: .delegateCall,
                caller: current.caller,
                target: current.target,
                codeAddress: address,
                value: current.value,
                input: f.memorySlice(inputOffset, inputSize),
                gas: callGas,
                isStatic: current.isStatic,
                depth: current.depth + 1
            )
        case .staticCall:
            message = Message(
                kind: .staticCall,
                caller: current.target,
                target: address,
                codeAddress: address,
                value: .zero,
                input: f.memorySlice(inputOffset, inputSize),
                gas: callGas,
                isStatic: true,
                depth: current.depth + 1
            )
        }
        let result = call(message)
        f.gas += result.gasLeft
        f.returnData = result.output
        if result.isSuccess || result.isRevert {
            let outputSize = min(outputSizeWord.int ?? 0, result.output.count)
            if outputSize > 0 {
                f.copyToMemory(result.output, sourceOffset: .zero, memoryOffset: outputOffset, size: outputSize)
            }
        }
        f.push(result.isSuccess ? .one : .zero)
    }
}
