/// What the block gives every transaction in it: the values of COINBASE, TIMESTAMP, NUMBER,
/// PREVRANDAO, GASLIMIT, CHAINID, BASEFEE, BLOBBASEFEE and BLOCKHASH.
public struct BlockEnvironment: Sendable {
    public var number: UInt64
    public var timestamp: UInt64
    public var coinbase: Address
    public var gasLimit: UInt64
    public var baseFee: U256
    /// The beacon chain's randomness (the header's mixHash since the merge).
    public var prevRandao: U256
    public var chainID: U256
    public var excessBlobGas: UInt64
    /// Hashes of recent blocks by number (BLOCKHASH serves the 256 before `number`).
    public var blockHashes: [UInt64: U256]

    public init(
        number: UInt64,
        timestamp: UInt64,
        coinbase: Address,
        gasLimit: UInt64,
        baseFee: U256,
        prevRandao: U256,
        chainID: U256 = U256(1),
        excessBlobGas: UInt64 = 0,
        blockHashes: [UInt64: U256] = [:]
    ) {
        self.number = number
        self.timestamp = timestamp
        self.coinbase = coinbase
        self.gasLimit = gasLimit
        self.baseFee = baseFee
        self.prevRandao = prevRandao
        self.chainID = chainID
        self.excessBlobGas = excessBlobGas
        self.blockHashes = blockHashes
    }

    /// EIP-4844's blob base fee: fake_exponential(1, excessBlobGas, 3338477).
    public var blobBaseFee: U256 {
        let factor = U256(Gas.minBlobBaseFee), numerator = U256(excessBlobGas), denominator = U256(Gas.blobBaseFeeUpdateFraction)
        var i = U256.one
        var output = U256.zero
        var accumulator = factor &* denominator
        while !accumulator.isZero {
            output = output &+ accumulator
            accumulator = (accumulator &* numerator) / (denominator &* i)
            i = i &+ .one
        }
        return output / denominator
    }
}

/// What one transaction gives its frames: ORIGIN, GASPRICE and BLOBHASH.
struct TransactionContext {
    var origin: Address
    var gasPrice: U256
    var blobHashes: [U256]
}
