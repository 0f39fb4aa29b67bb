import CXXHash

/// XXH64 through libxxhash, the hash behind Substrate's `twox` storage hashers.
///
/// twox is fast but not cryptographic: Substrate uses it only for keys no user controls (pallet and item
/// names, sequential ids). Maps keyed by user input use ``StorageHasher/blake2_128Concat``.
public enum XXHash {
    /// The 64-bit XXH64 of `data` with `seed`.
    public static func xxh64(_ data: some Collection<UInt8>, seed: UInt64 = 0) -> UInt64 {
        data.withContiguousStorageIfAvailable { XXH64($0.baseAddress, $0.count, seed) }
            ?? Array(data).withUnsafeBufferPointer { XXH64($0.baseAddress, $0.count, seed) }
    }

    /// Substrate's twox of `lanes × 8` bytes: XXH64 with seeds 0, 1, … each written little-endian, concatenated.
    static func twox(_ data: some Collection<UInt8>, lanes: Int) -> [UInt8] {
        // Hash from one contiguous buffer so a non-contiguous input is copied once, not once per lane.
        let bytes = Array(data)
        var out: [UInt8] = []
        out.reserveCapacity(lanes * 8)
        for seed in 0..<UInt64(lanes) {
            let lane = xxh64(bytes, seed: seed)
            for shift in stride(from: 0, to: 64, by: 8) {
                out.append(UInt8(truncatingIfNeeded: lane >> shift))
            }
        }
        return out
    }
}

/// Substrate's `twox_64`: XXH64(data, seed 0) as 8 little-endian bytes.
public func twox64(_ data: some Collection<UInt8>) -> [UInt8] { XXHash.twox(data, lanes: 1) }

/// Substrate's `twox_128`: XXH64 with seeds 0 and 1, each little-endian, concatenated (16 bytes).
public func twox128(_ data: some Collection<UInt8>) -> [UInt8] { XXHash.twox(data, lanes: 2) }

/// Substrate's `twox_256`: XXH64 with seeds 0, 1, 2 and 3, each little-endian, concatenated (32 bytes).
public func twox256(_ data: some Collection<UInt8>) -> [UInt8] { XXHash.twox(data, lanes: 4) }
