/// The Keccak-f[1600] permutation and the original Keccak-256 hash that Ethereum uses (padding
/// `0x01…0x80`, not SHA3-256's `0x06…0x80`). The permutation is public because STROBE (under
/// Merlin transcripts, for sr25519) runs on the same state.
public struct KeccakState: Sendable, Equatable {
    /// 25 lanes of 64 bits, lane (x, y) at index x + 5y, little-endian.
    public var lanes = [UInt64](repeating: 0, count: 25)

    public init() {}

    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]
    /// Rotation offsets of ρ and the lane order of π, walked as one cycle starting at lane 1.
    private static let rotations: [UInt64] = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44]
    private static let piLanes = [10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1]

    /// Applies the 24 rounds of Keccak-f[1600].
    public mutating func permute() {
        lanes.withUnsafeMutableBufferPointer { a in
            var c = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            for round in 0..<24 {
                // θ
                c.0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
                c.1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
                c.2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
                c.3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
                c.4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
                let d0 = c.4 ^ (c.1 << 1 | c.1 >> 63)
                let d1 = c.0 ^ (c.2 << 1 | c.2 >> 63)
                let d2 = c.1 ^ (c.3 << 1 | c.3 >> 63)
                let d3 = c.2 ^ (c.4 << 1 | c.4 >> 63)
                let d4 = c.3 ^ (c.0 << 1 | c.0 >> 63)
                for y in stride(from: 0, to: 25, by: 5) {
                    a[y] ^= d0
                    a[y + 1] ^= d1
                    a[y + 2] ^= d2
                    a[y + 3] ^= d3
                    a[y + 4] ^= d4
                }
                // ρ and π
                var carried = a[1]
                for step in 0..<24 {
                    let target = Self.piLanes[step]
                    let saved = a[target]
                    let r = Self.rotations[step]
                    a[target] = carried << r | carried >> (64 - r)
                    carried = saved
                }
                // χ
                for y in stride(from: 0, to: 25, by: 5) {
                    let b0 = a[y], b1 = a[y + 1], b2 = a[y + 2], b3 = a[y + 3], b4 = a[y + 4]
                    a[y] = b0 ^ (~b1 & b2)
                    a[y + 1] = b1 ^ (~b2 & b3)
                    a[y + 2] = b2 ^ (~b3 & b4)
                    a[y + 3] = b3 ^ (~b4 & b0)
                    a[y + 4] = b4 ^ (~b0 & b1)
                }
                // ι
                a[0] ^= Self.roundConstants[round]
            }
        }
    }

    /// XORs `byte` into the state at byte offset `index` (lanes are little-endian).
    public mutating func xor(byte: UInt8, at index: Int) {
        lanes[index / 8] ^= UInt64(byte) << UInt64(8 * (index % 8))
    }

    /// Replaces the byte at offset `index` (STROBE's overwrite and squeeze).
    public mutating func set(byte: UInt8, at index: Int) {
        let shift = UInt64(8 * (index % 8))
        lanes[index / 8] = lanes[index / 8] & ~(0xFF << shift) | UInt64(byte) << shift
    }

    /// The byte at offset `index`.
    public func byte(at index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: lanes[index / 8] >> UInt64(8 * (index % 8)))
    }
}

/// Keccak-256, incremental or one-shot.
///
/// ```swift
/// let digest = Keccak256.hash(Array("abc".utf8))   // 32 bytes
/// ```
public struct Keccak256: Sendable {
    /// Bytes absorbed per permutation: (1600 − 2·256) / 8.
    static let rate = 136
    private var state = KeccakState()
    private var position = 0

    public init() {}

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            state.xor(byte: byte, at: position)
            position += 1
            if position == Self.rate {
                state.permute()
                position = 0
            }
        }
    }

    /// The 32-byte digest. The hasher is spent afterwards.
    public mutating func finalize() -> [UInt8] {
        // Keccak's multi-rate padding: 0x01 at the end of the data, 0x80 in the last byte of the
        // block; both land in one byte (0x81) when the data ends one byte short of a block.
        state.xor(byte: 0x01, at: position)
        state.xor(byte: 0x80, at: Self.rate - 1)
        state.permute()
        return (0..<32).map { state.byte(at: $0) }
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = Keccak256()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
