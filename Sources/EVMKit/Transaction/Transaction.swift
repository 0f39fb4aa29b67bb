/// A transaction as the engine runs it: the sender already recovered (signatures are ChainKit's
/// business), fees by type.
public struct Transaction: Sendable, Hashable {
    /// The EIP-2718 type.
    public enum Kind: UInt8, Sendable {
        case legacy = 0
        /// EIP-2930: with an access list.
        case accessList = 1
        /// EIP-1559: fee cap and priority fee.
        case dynamicFee = 2
        /// EIP-4844: carries blobs (their versioned hashes).
        case blob = 3
    }

    public struct AccessListEntry: Sendable, Hashable {
        public var address: Address
        public var storageKeys: [U256]

        public init(address: Address, storageKeys: [U256]) {
            self.address = address
            self.storageKeys = storageKeys
        }
    }

    public var kind: Kind
    public var sender: Address
    /// `nil` creates a contract.
    public var to: Address?
    public var nonce: UInt64
    public var gasLimit: UInt64
    public var value: U256
    public var data: [UInt8]
    /// Legacy and EIP-2930 transactions.
    public var gasPrice: U256
    /// EIP-1559 and EIP-4844 transactions.
    public var maxFeePerGas: U256
    public var maxPriorityFeePerGas: U256
    public var accessList: [AccessListEntry]
    public var maxFeePerBlobGas: U256
    public var blobVersionedHashes: [U256]

    public init(
        kind: Kind,
        sender: Address,
        to: Address?,
        nonce: UInt64,
        gasLimit: UInt64,
        value: U256 = .zero,
        data: [UInt8] = [],
        gasPrice: U256 = .zero,
        maxFeePerGas: U256 = .zero,
        maxPriorityFeePerGas: U256 = .zero,
        accessList: [AccessListEntry] = [],
        maxFeePerBlobGas: U256 = .zero,
        blobVersionedHashes: [U256] = []
    ) {
        self.kind = kind
        self.sender = sender
        self.to = to
        self.nonce = nonce
        self.gasLimit = gasLimit
        self.value = value
        self.data = data
        self.gasPrice = gasPrice
        self.maxFeePerGas = maxFeePerGas
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.accessList = accessList
        self.maxFeePerBlobGas = maxFeePerBlobGas
        self.blobVersionedHashes = blobVersionedHashes
    }

    /// Whether fees are a cap and a tip (EIP-1559 style) rather than one gas price.
    var hasFeeCap: Bool { kind == .dynamicFee || kind == .blob }

    /// The price per gas the sender pays in a block with this base fee.
    func effectiveGasPrice(baseFee: U256) -> U256 {
        guard hasFeeCap else { return gasPrice }
        return min(maxFeePerGas, baseFee &+ maxPriorityFeePerGas)
    }

    /// The gas charged before any code runs: 21000 (+32000 to create), calldata bytes, access list
    /// entries, and 2 per initcode word (EIP-3860).
    public var intrinsicGas: UInt64 {
        var gas = UInt64(Gas.transaction)
        if to == nil { gas += UInt64(Gas.transactionCreate + Gas.initcodeWord * Gas.words(data.count)) }
        for byte in data { gas += UInt64(byte == 0 ? Gas.txDataZero : Gas.txDataNonZero) }
        for entry in accessList {
            gas += UInt64(Gas.accessListAddress + Gas.accessListStorageKey * entry.storageKeys.count)
        }
        return gas
    }
}

/// What a transaction did.
public struct Receipt: Sendable {
    /// True when the top frame succeeded.
    public var status: Bool
    /// Gas used after the refund: what the sender paid for.
    public var gasUsed: UInt64
    public var logs: [Log]
    public var contractAddress: Address?
    /// The top frame's return (or revert) data.
    public var output: [UInt8]
    /// Why the top frame halted, if it did (not for a revert).
    public var haltReason: HaltReason?
    /// Precompiles the transaction reached that this engine does not implement.
    public var unsupportedPrecompiles: Set<UInt8>
}
