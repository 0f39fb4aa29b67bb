import CZstd

/// zstd for stored blocks (RLP is compact but repetitive: addresses and roots recur).
enum Zstd {
    static let level: Int32 = 3

    static func compress(_ input: [UInt8]) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = input.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { ZSTD_compress($0.baseAddress, bound, source.baseAddress, input.count, level) }
        }
        precondition(ZSTD_isError(written) == 0, "zstd compression cannot fail with a bound-sized buffer")
        return Array(out.prefix(written))
    }

    /// Decompresses a frame that records its size, refusing more than `limit` bytes.
    static func decompress(_ input: [UInt8], limit: Int = 64 << 20) throws -> [UInt8] {
        let size = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, input.count) }
        // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are UInt64.max and UInt64.max - 1: both above any limit.
        guard size <= UInt64(limit) else {
            throw LocalChainFailure("a stored block is not a zstd frame of known size")
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        let written = input.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { ZSTD_decompress($0.baseAddress, Int(size), source.baseAddress, input.count) }
        }
        guard ZSTD_isError(written) == 0, written == Int(size) else { throw LocalChainFailure("a stored block does not decompress") }
        return out
    }
}
