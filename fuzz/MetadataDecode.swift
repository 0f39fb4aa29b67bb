// libFuzzer entry: runtime metadata decoding (V14/V15) never traps, hangs or over-allocates on
// hostile bytes: type ids out of range, huge declared lengths, deep nesting, truncation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // With and without the magic and a version byte, so the fuzzer reaches the body quickly.
    _ = try? RuntimeMetadata(bytes: bytes)
    _ = try? RuntimeMetadata(bytes: Array("meta".utf8) + [14] + bytes)
    _ = try? RuntimeMetadata(bytes: Array("meta".utf8) + [15] + bytes)
    return 0
}
