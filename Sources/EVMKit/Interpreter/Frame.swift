/// The machine state of one running frame: program counter, gas, stack, memory, return data.
///
/// The stack is a pointer into a buffer the ``Machine`` keeps per call depth, so pushing and popping
/// never allocate and the frame itself stays small (calls recurse up to 1024 deep).
struct Frame {
    let message: Message
    let code: [UInt8]
    /// JUMPDEST positions (1 = a JUMPDEST opcode, not push data).
    let jumpdests: [UInt8]
    var pc = 0
    var gas: Int
    let stack: UnsafeMutablePointer<U256>
    var sp = 0
    var memory: [UInt8] = []
    /// The output of the last call or create made from this frame (RETURNDATASIZE/COPY).
    var returnData: [UInt8] = []

    init(message: Message, code: [UInt8], jumpdests: [UInt8], stack: UnsafeMutablePointer<U256>) {
        self.message = message
        self.code = code
        self.jumpdests = jumpdests
        self.gas = message.gas
        self.stack = stack
    }

    // MARK: Stack (the dispatch loop has checked depth and room already)

    @inline(__always)
    mutating func pop() -> U256 {
        sp &-= 1
        return stack[sp]
    }

    @inline(__always)
    mutating func push(_ value: U256) {
        stack[sp] = value
        sp &+= 1
    }

    /// The item `depth` below the top (0 is the top).
    @inline(__always)
    func peek(_ depth: Int = 0) -> U256 { stack[sp &- 1 &- depth] }

    /// Replaces the top item.
    @inline(__always)
    func setTop(_ value: U256) { stack[sp &- 1] = value }

    // MARK: Gas

    @inline(__always)
    mutating func charge(_ amount: Int) throws(HaltReason) {
        if amount > gas { throw .outOfGas }
        gas &-= amount
    }

    // MARK: Memory

    /// Grows memory to cover `size` bytes at `offset` and charges the expansion; returns the offset.
    /// A zero size touches nothing and costs nothing, whatever the offset.
    @inline(__always)
    mutating func expandMemory(offset: U256, size: U256) throws(HaltReason) -> Int {
        if size.isZero { return 0 }
        guard let start = offset.int, let length = size.int, start <= Gas.memoryLimit, length <= Gas.memoryLimit else {
            throw .outOfGas
        }
        try expandMemory(end: start + length)
        return start
    }

    /// Grows memory to at least `end` bytes (rounded up to a word), charging the difference in cost.
    @inline(__always)
    mutating func expandMemory(end: Int) throws(HaltReason) {
        if end <= memory.count { return }
        if end > Gas.memoryLimit { throw .outOfGas }
        let newWords = Gas.words(end)
        let cost = Gas.memoryCost(words: newWords) - Gas.memoryCost(words: memory.count / 32)
        try charge(cost)
        memory.append(contentsOf: repeatElement(0, count: newWords * 32 - memory.count))
    }

    /// Copies `size` bytes of `source` starting at `sourceOffset` (zeros past its end) into memory
    /// at `memoryOffset`; memory must already cover the range.
    mutating func copyToMemory(_ source: [UInt8], sourceOffset: U256, memoryOffset: Int, size: Int) {
        if size == 0 { return }
        let start = sourceOffset.int.map { min($0, source.count) } ?? source.count
        let available = min(size, source.count - start)
        memory.withUnsafeMutableBufferPointer { mem in
            source.withUnsafeBufferPointer { src in
                if available > 0 {
                    (mem.baseAddress! + memoryOffset).update(from: src.baseAddress! + start, count: available)
                }
                if available < size {
                    (mem.baseAddress! + memoryOffset + max(available, 0)).update(repeating: 0, count: size - max(available, 0))
                }
            }
        }
    }

    /// `size` bytes of memory at `offset` (memory must cover them).
    func memorySlice(_ offset: Int, _ size: Int) -> [UInt8] {
        size == 0 ? [] : Array(memory[offset..<(offset + size)])
    }

    /// The 32-byte word at `offset` (memory must cover it).
    @inline(__always)
    func loadWord(_ offset: Int) -> U256 {
        memory.withUnsafeBytes { U256(bigEndian: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + 32)])) }
    }

    @inline(__always)
    mutating func storeWord(_ value: U256, at offset: Int) {
        memory.withUnsafeMutableBytes { value.storeBigEndian(to: $0.baseAddress! + offset) }
    }

    /// JUMP/JUMPI's target check.
    @inline(__always)
    func isValidJump(_ destination: U256) -> Int? {
        guard let target = destination.int, target < jumpdests.count, jumpdests[target] == 1 else { return nil }
        return target
    }

    /// Marks the JUMPDEST bytes of `code`, skipping push data.
    static func analyzeJumpdests(_ code: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: code.count)
        var i = 0
        while i < code.count {
            let op = code[i]
            if op == 0x5B {
                table[i] = 1
            } else if op >= 0x60 && op <= 0x7F {
                i += Int(op - 0x5F)
            }
            i += 1
        }
        return table
    }
}
