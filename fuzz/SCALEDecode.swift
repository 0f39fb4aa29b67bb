// libFuzzer entry: SCALE decoding of nested vectors, options, compacts and strings never traps
// on hostile lengths, and what decodes re-encodes to the same bytes (canonical forms only).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSCALE(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? [[String?]](scaleEncoded: bytes) {
        precondition(value.scaleEncoded == bytes, "accepted SCALE that does not re-encode to itself")
    }
    if let value = try? SCALECompact<UInt128>(scaleEncoded: bytes) {
        precondition(value.scaleEncoded == bytes, "accepted a non-canonical compact")
    }
    var decoder = SCALEDecoder(bytes)
    _ = try? Era(from: &decoder)
    return 0
}
