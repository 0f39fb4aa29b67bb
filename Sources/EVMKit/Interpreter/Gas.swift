/// Gas constants of the Cancun schedule and the cost formulas shared by several opcodes.
enum Gas {
    static let zero = 0
    static let base = 2
    static let veryLow = 3
    static let low = 5
    static let mid = 8
    static let high = 10
    static let jumpdest = 1

    // EIP-2929 access costs.
    static let warmAccess = 100
    static let coldAccountAccess = 2600
    static let coldSload = 2100

    // SSTORE (EIP-2200 as repriced by EIP-2929 and EIP-3529).
    static let sstoreSet = 20000
    static let sstoreReset = 5000 - coldSload
    static let sstoreClearsRefund = 4800
    /// A frame with this much gas left or less may not SSTORE (EIP-2200's reentrancy sentry).
    static let sstoreSentry = 2300

    static let keccak256 = 30
    static let keccak256Word = 6
    static let copyWord = 3
    static let expByte = 50
    static let log = 375
    static let logTopic = 375
    static let logDataByte = 8
    static let blockhash = 20

    static let create = 32000
    static let codeDepositByte = 200
    /// EIP-3860: per 32-byte word of initcode.
    static let initcodeWord = 2
    static let callValue = 9000
    static let callStipend = 2300
    static let newAccount = 25000
    static let selfdestruct = 5000

    // Transactions.
    static let transaction = 21000
    static let transactionCreate = 32000
    static let txDataZero = 4
    static let txDataNonZero = 16
    static let accessListAddress = 2400
    static let accessListStorageKey = 1900
    /// EIP-3529: refunds are capped at a fifth of the gas used.
    static let maxRefundQuotient = 5

    // Limits.
    static let maxCodeSize = 24576
    static let maxInitcodeSize = 2 * maxCodeSize
    static let maxCallDepth = 1024
    static let stackLimit = 1024

    // EIP-4844.
    static let blobGasPerBlob: UInt64 = 131_072
    /// Six blobs per block (EIP-4844, Cancun).
    static let maxBlobGasPerBlock: UInt64 = 786_432
    static let minBlobBaseFee: UInt64 = 1
    static let blobBaseFeeUpdateFraction: UInt64 = 3_338_477

    /// 32-byte words needed for `size` bytes.
    @inline(__always)
    static func words(_ size: Int) -> Int { (size &+ 31) / 32 }

    /// The total cost of `words` words of memory: 3 per word plus words²/512.
    @inline(__always)
    static func memoryCost(words: Int) -> Int { 3 &* words &+ (words &* words) / 512 }

    /// Past this many bytes, memory costs more gas than any block holds; treat as out of gas early
    /// so the arithmetic never overflows.
    static let memoryLimit = 0x1_0000_0000
}
