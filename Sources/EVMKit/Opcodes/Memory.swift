import ChainKit

/// KECCAK256, the copy instructions and MCOPY: memory expansion plus 3 gas per word copied.
extension Machine {
    func keccak256(_ f: inout Frame) throws(HaltReason) {
        let offset = try f.expandMemory(offset: f.peek(), size: f.peek(1))
        let size = f.peek(1).int ?? 0
        try f.charge(Gas.keccak256Word * Gas.words(size))
        _ = f.pop()
        let hash = f.memory.withUnsafeBufferPointer { memory in
            Keccak256.hash(UnsafeBufferPointer(rebasing: memory[offset..<(offset + size)]))
        }
        f.setTop(U256(bigEndian: hash))
    }

    /// CALLDATACOPY and CODECOPY: memory ← source[offset…], zeros past its end.
    func copy(_ f: inout Frame, from source: [UInt8]) throws(HaltReason) {
        let memoryOffset = try f.expandMemory(offset: f.peek(), size: f.peek(2))
        let size = f.peek(2).int ?? 0
        try f.charge(Gas.copyWord * Gas.words(size))
        _ = f.pop()
        let sourceOffset = f.pop()
        _ = f.pop()
        f.copyToMemory(source, sourceOffset: sourceOffset, memoryOffset: memoryOffset, size: size)
    }

    /// RETURNDATACOPY: reading past the return data is an error, not zeros.
    func returnDataCopy(_ f: inout Frame) throws(HaltReason) {
        let memoryOffset = try f.expandMemory(offset: f.peek(), size: f.peek(2))
        let size = f.peek(2).int ?? 0
        try f.charge(Gas.copyWord * Gas.words(size))
        _ = f.pop()
        let sourceOffset = f.pop()
        let sizeWord = f.pop()
        let (end, overflow) = sourceOffset.addingReportingOverflow(sizeWord)
        guard !overflow, let endInt = end.int, endInt <= f.returnData.count else { throw .returnDataOutOfBounds }
        f.copyToMemory(f.returnData, sourceOffset: sourceOffset, memoryOffset: memoryOffset, size: size)
    }

    /// MCOPY (EIP-5656): memory expands to cover both ranges; overlapping copies behave as memmove.
    func mcopy(_ f: inout Frame) throws(HaltReason) {
        let destination = f.pop(), source = f.pop(), sizeWord = f.pop()
        if sizeWord.isZero { return }
        guard let size = sizeWord.int, size <= Gas.memoryLimit else { throw .outOfGas }
        try f.charge(Gas.copyWord * Gas.words(size))
        let to = try f.expandMemory(offset: destination, size: sizeWord)
        let from = try f.expandMemory(offset: source, size: sizeWord)
        f.memory.withUnsafeMutableBufferPointer { memory in
            let base = memory.baseAddress!
            UnsafeMutableRawPointer(base + to).copyMemory(from: base + from, byteCount: size)
        }
    }

    /// CALLDATALOAD: 32 bytes of input at `offset`, zero-padded.
    static func callDataLoad(_ input: [UInt8], _ offset: U256) -> U256 {
        guard let start = offset.int, start < input.count else { return .zero }
        let end = min(start + 32, input.count)
        var word = [UInt8](repeating: 0, count: 32)
        for i in start..<end { word[i - start] = input[i] }
        return U256(bigEndian: word)
    }
}
