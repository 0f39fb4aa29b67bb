// libFuzzer entry: ABI decoding of a nested dynamic signature never traps on hostile offsets.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzABI(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let types: [ABIType] = [.array(.tuple([.uint(bits: 256), .string])), .bytes, .fixedArray(.string, 2)]
    if let values = try? ABI.decode(types, bytes) {
        precondition((try? ABI.encode(types, values)) != nil, "decoded values that do not encode")
    }
    return 0
}
