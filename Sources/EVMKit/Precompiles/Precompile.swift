/// The precompiled contracts at 0x01…0x0a (Cancun). Each prices its input and runs it; a call that
/// cannot pay fails and consumes the gas it was given.
enum Precompile: UInt8 {
    case ecrecover = 1
    case sha256 = 2
    case ripemd160 = 3
    case identity = 4
    case modexp = 5
    case bn254Add = 6
    case bn254Mul = 7
    case bn254Pairing = 8
    case blake2f = 9
    case pointEvaluation = 10

    enum Result {
        case success(output: [UInt8], gasUsed: Int)
        case failure(HaltReason)
    }

    /// The precompile at `address`, if it is one.
    init?(address: Address) {
        guard address.high == 0, address.middle == 0, address.low >= 1, address.low <= 10 else { return nil }
        self.init(rawValue: UInt8(address.low))
    }

    /// Every precompile address: warm from the start of each transaction (EIP-2929).
    static let addresses: [Address] = (1...10).map { Address(low: $0) }

    func run(input: [UInt8], gas: Int) -> Result {
        let cost: Int
        switch self {
        case .ecrecover: cost = 3000
        case .sha256: cost = 60 + 12 * Gas.words(input.count)
        case .ripemd160: cost = 600 + 120 * Gas.words(input.count)
        case .identity: cost = 15 + 3 * Gas.words(input.count)
        case .modexp: cost = ModExp.gasCost(input)
        case .blake2f:
            guard input.count == 213 else { return .failure(.precompileFailure) }
            cost = Int(UInt32(input[0]) << 24 | UInt32(input[1]) << 16 | UInt32(input[2]) << 8 | UInt32(input[3]))
        case .bn254Add: cost = 150
        case .bn254Mul: cost = 6000
        case .bn254Pairing:
            // 45000 + 34000 per (G1, G2) pair of 192 bytes; only the empty product is computed here.
            guard input.count % 192 == 0 else { return .failure(.precompileFailure) }
            guard input.isEmpty else { return .failure(.unsupportedPrecompile(rawValue)) }
            cost = 45000
        case .pointEvaluation:
            return .failure(.unsupportedPrecompile(rawValue))
        }
        guard cost <= gas else { return .failure(.outOfGas) }
        switch self {
        case .ecrecover: return .success(output: Ecrecover.run(input), gasUsed: cost)
        case .sha256: return .success(output: ChainKitHashes.sha256(input), gasUsed: cost)
        case .ripemd160: return .success(output: [UInt8](repeating: 0, count: 12) + ChainKitHashes.ripemd160(input), gasUsed: cost)
        case .identity: return .success(output: input, gasUsed: cost)
        case .modexp: return .success(output: ModExp.run(input), gasUsed: cost)
        case .blake2f:
            guard let output = Blake2f.run(input) else { return .failure(.precompileFailure) }
            return .success(output: output, gasUsed: cost)
        case .bn254Add:
            guard let output = BN254.runAdd(input) else { return .failure(.precompileFailure) }
            return .success(output: output, gasUsed: cost)
        case .bn254Mul:
            guard let output = BN254.runMul(input) else { return .failure(.precompileFailure) }
            return .success(output: output, gasUsed: cost)
        case .bn254Pairing:
            return .success(output: U256.one.bigEndianBytes, gasUsed: cost)
        case .pointEvaluation:
            return .failure(.unsupportedPrecompile(rawValue))
        }
    }
}

/// Reads `count` bytes of `input` at `offset`, zero-padded past its end (precompile inputs are
/// implicitly padded).
func paddedSlice(_ input: [UInt8], _ offset: Int, _ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    if offset < input.count {
        let available = min(count, input.count - offset)
        for i in 0..<available { out[i] = input[offset + i] }
    }
    return out
}
