// libFuzzer entry: RLP.decode must never trap, hang or read out of bounds, whatever the bytes,
// and whatever it accepts must re-encode to the same bytes (decoding is strict and canonical).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRLP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let item = try? RLP.decode(bytes) {
        precondition(RLP.encode(item) == bytes, "accepted RLP that does not re-encode to itself")
    }
    return 0
}
