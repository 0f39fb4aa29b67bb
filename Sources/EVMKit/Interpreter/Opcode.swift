/// Per-opcode facts the dispatch loop checks before running an instruction: its static gas, the
/// stack items it needs and how much it grows the stack. Dynamic costs (memory, access lists,
/// copies) are charged by the instruction itself.
struct OpcodeInfo {
    var gas: Int
    var pops: Int
    /// Pushes minus pops: the loop checks sp + growth against the 1024 limit.
    var growth: Int
    var defined: Bool

    static let undefined = OpcodeInfo(gas: 0, pops: 0, growth: 0, defined: false)

    /// The Cancun instruction set.
    static let table: [OpcodeInfo] = {
        var t = [OpcodeInfo](repeating: .undefined, count: 256)
        func op(_ code: Int, _ gas: Int, _ pops: Int, _ pushes: Int) {
            t[code] = OpcodeInfo(gas: gas, pops: pops, growth: pushes - pops, defined: true)
        }
        op(0x00, Gas.zero, 0, 0)  // STOP
        op(0x01, Gas.veryLow, 2, 1)  // ADD
        op(0x02, Gas.low, 2, 1)  // MUL
        op(0x03, Gas.veryLow, 2, 1)  // SUB
        op(0x04, Gas.low, 2, 1)  // DIV
        op(0x05, Gas.low, 2, 1)  // SDIV
        op(0x06, Gas.low, 2, 1)  // MOD
        op(0x07, Gas.low, 2, 1)  // SMOD
        op(0x08, Gas.mid, 3, 1)  // ADDMOD
        op(0x09, Gas.mid, 3, 1)  // MULMOD
        op(0x0A, Gas.high, 2, 1)  // EXP (+ 50 per exponent byte)
        op(0x0B, Gas.low, 2, 1)  // SIGNEXTEND
        for code in 0x10...0x14 { op(code, Gas.veryLow, 2, 1) }  // LT GT SLT SGT EQ
        op(0x15, Gas.veryLow, 1, 1)  // ISZERO
        for code in 0x16...0x18 { op(code, Gas.veryLow, 2, 1) }  // AND OR XOR
        op(0x19, Gas.veryLow, 1, 1)  // NOT
        op(0x1A, Gas.veryLow, 2, 1)  // BYTE
        for code in 0x1B...0x1D { op(code, Gas.veryLow, 2, 1) }  // SHL SHR SAR
        op(0x20, Gas.keccak256, 2, 1)  // KECCAK256
        op(0x30, Gas.base, 0, 1)  // ADDRESS
        op(0x31, 0, 1, 1)  // BALANCE (warm/cold)
        op(0x32, Gas.base, 0, 1)  // ORIGIN
        op(0x33, Gas.base, 0, 1)  // CALLER
        op(0x34, Gas.base, 0, 1)  // CALLVALUE
        op(0x35, Gas.veryLow, 1, 1)  // CALLDATALOAD
        op(0x36, Gas.base, 0, 1)  // CALLDATASIZE
        op(0x37, Gas.veryLow, 3, 0)  // CALLDATACOPY
        op(0x38, Gas.base, 0, 1)  // CODESIZE
        op(0x39, Gas.veryLow, 3, 0)  // CODECOPY
        op(0x3A, Gas.base, 0, 1)  // GASPRICE
        op(0x3B, 0, 1, 1)  // EXTCODESIZE
        op(0x3C, 0, 4, 0)  // EXTCODECOPY
        op(0x3D, Gas.base, 0, 1)  // RETURNDATASIZE
        op(0x3E, Gas.veryLow, 3, 0)  // RETURNDATACOPY
        op(0x3F, 0, 1, 1)  // EXTCODEHASH
        op(0x40, Gas.blockhash, 1, 1)  // BLOCKHASH
        for code in 0x41...0x46 { op(code, Gas.base, 0, 1) }  // COINBASE TIMESTAMP NUMBER PREVRANDAO GASLIMIT CHAINID
        op(0x47, Gas.low, 0, 1)  // SELFBALANCE
        op(0x48, Gas.base, 0, 1)  // BASEFEE
        op(0x49, Gas.veryLow, 1, 1)  // BLOBHASH
        op(0x4A, Gas.base, 0, 1)  // BLOBBASEFEE
        op(0x50, Gas.base, 1, 0)  // POP
        op(0x51, Gas.veryLow, 1, 1)  // MLOAD
        op(0x52, Gas.veryLow, 2, 0)  // MSTORE
        op(0x53, Gas.veryLow, 2, 0)  // MSTORE8
        op(0x54, 0, 1, 1)  // SLOAD
        op(0x55, 0, 2, 0)  // SSTORE
        op(0x56, Gas.mid, 1, 0)  // JUMP
        op(0x57, Gas.high, 2, 0)  // JUMPI
        op(0x58, Gas.base, 0, 1)  // PC
        op(0x59, Gas.base, 0, 1)  // MSIZE
        op(0x5A, Gas.base, 0, 1)  // GAS
        op(0x5B, Gas.jumpdest, 0, 0)  // JUMPDEST
        op(0x5C, Gas.warmAccess, 1, 1)  // TLOAD
        op(0x5D, Gas.warmAccess, 2, 0)  // TSTORE
        op(0x5E, Gas.veryLow, 3, 0)  // MCOPY
        op(0x5F, Gas.base, 0, 1)  // PUSH0
        for code in 0x60...0x7F { op(code, Gas.veryLow, 0, 1) }  // PUSH1…PUSH32
        for n in 1...16 { op(0x7F + n, Gas.veryLow, n, n + 1) }  // DUP1…DUP16
        for n in 1...16 { op(0x8F + n, Gas.veryLow, n + 1, n + 1) }  // SWAP1…SWAP16
        for n in 0...4 { op(0xA0 + n, Gas.log + n * Gas.logTopic, n + 2, 0) }  // LOG0…LOG4
        op(0xF0, Gas.create, 3, 1)  // CREATE
        op(0xF1, 0, 7, 1)  // CALL
        op(0xF2, 0, 7, 1)  // CALLCODE
        op(0xF3, Gas.zero, 2, 0)  // RETURN
        op(0xF4, 0, 6, 1)  // DELEGATECALL
        op(0xF5, Gas.create, 4, 1)  // CREATE2
        op(0xFA, 0, 6, 1)  // STATICCALL
        op(0xFD, Gas.zero, 2, 0)  // REVERT
        op(0xFF, Gas.selfdestruct, 1, 0)  // SELFDESTRUCT
        return t
    }()
}
