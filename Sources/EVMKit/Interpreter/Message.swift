/// Why a frame stopped abnormally. Every one of these consumes all the frame's gas and reverts its
/// state changes (a REVERT is not among them: it returns gas and data).
public enum HaltReason: Error, Sendable, Hashable, CustomStringConvertible {
    case outOfGas
    case stackUnderflow
    case stackOverflow
    case invalidOpcode(UInt8)
    case invalidJump
    /// A state change (SSTORE, LOG, CREATE, CALL with value, SELFDESTRUCT, TSTORE) inside STATICCALL.
    case staticStateChange
    case returnDataOutOfBounds
    /// EIP-3860: CREATE/CREATE2 initcode over 49152 bytes.
    case initcodeTooLarge
    /// EIP-170: deployed code over 24576 bytes.
    case codeTooLarge
    /// EIP-3541: deployed code starting with 0xEF.
    case invalidCodePrefix
    /// CREATE/CREATE2 onto an address that already has code or a nonce.
    case addressCollision
    /// A precompile's input it cannot accept (e.g. blake2f's length or flag).
    case precompileFailure
    /// A precompile this engine does not implement (bn254 0x06–0x08, KZG 0x0a).
    case unsupportedPrecompile(UInt8)

    public var description: String {
        switch self {
        case .outOfGas: "out of gas"
        case .stackUnderflow: "stack underflow"
        case .stackOverflow: "stack overflow (1024 items)"
        case .invalidOpcode(let op): "invalid opcode 0x\(String(op, radix: 16))"
        case .invalidJump: "jump to a non-JUMPDEST"
        case .staticStateChange: "state change inside a static call"
        case .returnDataOutOfBounds: "RETURNDATACOPY past the return data"
        case .initcodeTooLarge: "initcode over 49152 bytes (EIP-3860)"
        case .codeTooLarge: "code over 24576 bytes (EIP-170)"
        case .invalidCodePrefix: "code starting with 0xEF (EIP-3541)"
        case .addressCollision: "contract address already in use"
        case .precompileFailure: "precompile rejected its input"
        case .unsupportedPrecompile(let n): "unsupported precompile 0x\(String(n, radix: 16)) (bn254/KZG are not implemented)"
        }
    }
}

/// CALL, CALLCODE, DELEGATECALL and STATICCALL differ in whose storage runs, who pays and who is
/// the caller.
enum CallKind {
    case call, callCode, delegateCall, staticCall
}

/// One message call: the inputs of a frame.
struct Message {
    var kind: CallKind
    /// CALLER in the new frame.
    var caller: Address
    /// ADDRESS in the new frame: whose storage and balance it uses.
    var target: Address
    /// Whose code runs.
    var codeAddress: Address
    /// CALLVALUE (DELEGATECALL passes its parent's on, without a transfer).
    var value: U256
    var input: [UInt8]
    var gas: Int
    var isStatic: Bool
    /// 0 for the transaction's own frame.
    var depth: Int
}

/// How a frame ended.
struct FrameResult {
    enum Status {
        case success
        case revert
        case halt(HaltReason)
        /// Never ran: call depth, the caller's balance or nonce said no. The gas goes back.
        case rejected
    }

    var status: Status
    var gasLeft: Int
    var output: [UInt8]
    var createdAddress: Address? = nil

    var isSuccess: Bool {
        if case .success = status { return true }
        return false
    }

    var isRevert: Bool {
        if case .revert = status { return true }
        return false
    }

    /// A call that failed before running (depth, balance, nonce): its gas goes back to the caller.
    static func rejected(gas: Int) -> FrameResult { FrameResult(status: .rejected, gasLeft: gas, output: []) }
}
