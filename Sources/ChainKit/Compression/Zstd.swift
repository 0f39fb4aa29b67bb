import CZstd

/// zstd (RFC 8878) through libzstd: one-shot compression of whole frames that record their
/// content size, and decompression bounded by a limit the caller sets.
///
/// Chain data compresses well (RLP is compact but repetitive: addresses and roots recur), so rails
/// store blocks compressed. Decompression reads the size the frame declares before allocating and
/// refuses frames that do not declare one or declare more than `limit`: a hostile or corrupt frame
/// cannot make it allocate without bound.
///
/// ```swift
/// let stored = Zstd.compress(block.encoded)
/// let encoded = try Zstd.decompress(stored)  // block.encoded
/// ```
public enum Zstd {
    /// The compression level used when none is given: zstd's own default, fast with a good ratio.
    public static let defaultLevel: Int32 = 3
    /// The largest output ``decompress(_:limit:)`` allows unless told otherwise (64 MiB).
    public static let defaultLimit = 64 << 20

    /// One zstd frame holding `input`, with its content size recorded.
    public static func compress(_ input: [UInt8], level: Int32 = defaultLevel) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = input.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { ZSTD_compress($0.baseAddress, bound, source.baseAddress, input.count, level) }
        }
        precondition(ZSTD_isError(written) == 0, "zstd compression cannot fail with a bound-sized buffer")
        return Array(out.prefix(written))
    }

    /// The content of one zstd frame that records its size.
    /// - Throws: ``ChainKitError`` `invalid_zstd` when `input` is not such a frame, declares more
    ///   than `limit` bytes, or does not decompress to the size it declares.
    public static func decompress(_ input: [UInt8], limit: Int = defaultLimit) throws -> [UInt8] {
        let size = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, input.count) }
        // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are UInt64.max and UInt64.max - 1: both above any limit.
        guard size <= UInt64(limit) else {
            throw ChainKitError(.invalidZstd, "not a zstd frame of known size up to \(limit) bytes")
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        let written = input.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { ZSTD_decompress($0.baseAddress, Int(size), source.baseAddress, input.count) }
        }
        guard ZSTD_isError(written) == 0, written == Int(size) else {
            throw ChainKitError(.invalidZstd, "the zstd frame does not decompress to the \(size) bytes it declares")
        }
        return out
    }
}
