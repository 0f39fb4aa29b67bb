// libFuzzer entry: raw transaction decoding never traps, and what decodes re-encodes byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransaction(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let transaction = try? SignedEthereumTransaction.decode(bytes) {
        precondition(transaction.raw == bytes, "accepted a transaction that does not re-encode to itself")
        _ = try? transaction.sender()
    }
    return 0
}
