// libFuzzer entry: the EVM interpreter must never trap, crash or hold runaway memory, whatever the
// bytecode and calldata. The input's first byte picks a call (even) or a creation (odd) and the
// second the calldata's length; the rest is calldata, then code. The code runs with a million gas on
// an InMemoryState where it is deployed at two addresses (so calls reach real code), and the receipt
// must respect the gas limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEVMExecute(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let creates = bytes[0] & 1 == 1
    let calldataLength = min(Int(bytes[1]), size - 2)
    let calldata = Array(bytes[2..<(2 + calldataLength)])
    let code = Array(bytes[(2 + calldataLength)...])

    let sender = Address(low: 0x5E4D), contract = Address(low: 0xAAAA), sibling = Address(low: 0xBBBB)
    var state = InMemoryState(accounts: [
        sender: Account(balance: U256(1) << 100),
        contract: Account(nonce: 1, balance: U256(1_000_000), code: code),
        sibling: Account(nonce: 1, code: code),
    ])
    let block = BlockEnvironment(
        number: 1,
        timestamp: 1_700_000_000,
        coinbase: Address(low: 0xC0FFEE),
        gasLimit: 30_000_000,
        baseFee: U256(7),
        prevRandao: U256(0x1234)
    )
    let gasLimit: UInt64 = 1_000_000
    let transaction = Transaction(
        kind: .dynamicFee,
        sender: sender,
        to: creates ? nil : contract,
        nonce: 0,
        gasLimit: gasLimit,
        value: U256(3),
        data: creates ? code : calldata,
        maxFeePerGas: U256(10),
        maxPriorityFeePerGas: U256(2)
    )
    guard let receipt = try? TransactionExecutor(block: block).execute(transaction, on: &state) else { return 0 }
    precondition(receipt.gasUsed <= gasLimit, "a transaction used more gas than its limit")
    precondition(receipt.status || receipt.logs.isEmpty, "a failed transaction kept its logs")
    return 0
}
