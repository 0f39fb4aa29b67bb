/// The Keccak-f[1600] permutation and the original Keccak-256 hash that Ethereum uses (padding
/// `0x01…0x80`, not SHA3-256's `0x06…0x80`). The permutation is public because STROBE (under
/// Merlin transcripts, for sr25519) runs on the same state.
public struct KeccakState: Sendable {
    /// 25 lanes of 64 bits, lane (x, y) at position x + 5y, little-endian. A tuple: inline, no
    /// heap and no copy-on-write check on every byte STROBE touches.
    public var lanes:
        (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    public init() {}

    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]

    /// Applies the 24 rounds of Keccak-f[1600], unrolled over 25 local lanes (the statements are
    /// generated from the standard rotation offsets; see the comments per step).
    public mutating func permute() {
        var a00 = lanes.0
        var a01 = lanes.1
        var a02 = lanes.2
        var a03 = lanes.3
        var a04 = lanes.4
        var a05 = lanes.5
        var a06 = lanes.6
        var a07 = lanes.7
        var a08 = lanes.8
        var a09 = lanes.9
        var a10 = lanes.10
        var a11 = lanes.11
        var a12 = lanes.12
        var a13 = lanes.13
        var a14 = lanes.14
        var a15 = lanes.15
        var a16 = lanes.16
        var a17 = lanes.17
        var a18 = lanes.18
        var a19 = lanes.19
        var a20 = lanes.20
        var a21 = lanes.21
        var a22 = lanes.22
        var a23 = lanes.23
        var a24 = lanes.24
        for round in 0..<24 {
            // θ
            let c0 = a00 ^ a05 ^ a10 ^ a15 ^ a20
            let c1 = a01 ^ a06 ^ a11 ^ a16 ^ a21
            let c2 = a02 ^ a07 ^ a12 ^ a17 ^ a22
            let c3 = a03 ^ a08 ^ a13 ^ a18 ^ a23
            let c4 = a04 ^ a09 ^ a14 ^ a19 ^ a24
            let d0 = c4 ^ (c1 << 1 | c1 >> 63)
            let d1 = c0 ^ (c2 << 1 | c2 >> 63)
            let d2 = c1 ^ (c3 << 1 | c3 >> 63)
            let d3 = c2 ^ (c4 << 1 | c4 >> 63)
            let d4 = c3 ^ (c0 << 1 | c0 >> 63)
            a00 ^= d0
            a01 ^= d1
            a02 ^= d2
            a03 ^= d3
            a04 ^= d4
            a05 ^= d0
            a06 ^= d1
            a07 ^= d2
            a08 ^= d3
            a09 ^= d4
            a10 ^= d0
            a11 ^= d1
            a12 ^= d2
            a13 ^= d3
            a14 ^= d4
            a15 ^= d0
            a16 ^= d1
            a17 ^= d2
            a18 ^= d3
            a19 ^= d4
            a20 ^= d0
            a21 ^= d1
            a22 ^= d2
            a23 ^= d3
            a24 ^= d4
            // ρ and π: B[y][2x+3y] = rot(A[x][y])
            let b00 = a00
            let b16 = (a05 << 36 | a05 >> 28)
            let b07 = (a10 << 3 | a10 >> 61)
            let b23 = (a15 << 41 | a15 >> 23)
            let b14 = (a20 << 18 | a20 >> 46)
            let b10 = (a01 << 1 | a01 >> 63)
            let b01 = (a06 << 44 | a06 >> 20)
            let b17 = (a11 << 10 | a11 >> 54)
            let b08 = (a16 << 45 | a16 >> 19)
            let b24 = (a21 << 2 | a21 >> 62)
            let b20 = (a02 << 62 | a02 >> 2)
            let b11 = (a07 << 6 | a07 >> 58)
            let b02 = (a12 << 43 | a12 >> 21)
            let b18 = (a17 << 15 | a17 >> 49)
            let b09 = (a22 << 61 | a22 >> 3)
            let b05 = (a03 << 28 | a03 >> 36)
            let b21 = (a08 << 55 | a08 >> 9)
            let b12 = (a13 << 25 | a13 >> 39)
            let b03 = (a18 << 21 | a18 >> 43)
            let b19 = (a23 << 56 | a23 >> 8)
            let b15 = (a04 << 27 | a04 >> 37)
            let b06 = (a09 << 20 | a09 >> 44)
            let b22 = (a14 << 39 | a14 >> 25)
            let b13 = (a19 << 8 | a19 >> 56)
            let b04 = (a24 << 14 | a24 >> 50)
            // χ
            a00 = b00 ^ (~b01 & b02)
            a01 = b01 ^ (~b02 & b03)
            a02 = b02 ^ (~b03 & b04)
            a03 = b03 ^ (~b04 & b00)
            a04 = b04 ^ (~b00 & b01)
            a05 = b05 ^ (~b06 & b07)
            a06 = b06 ^ (~b07 & b08)
            a07 = b07 ^ (~b08 & b09)
            a08 = b08 ^ (~b09 & b05)
            a09 = b09 ^ (~b05 & b06)
            a10 = b10 ^ (~b11 & b12)
            a11 = b11 ^ (~b12 & b13)
            a12 = b12 ^ (~b13 & b14)
            a13 = b13 ^ (~b14 & b10)
            a14 = b14 ^ (~b10 & b11)
            a15 = b15 ^ (~b16 & b17)
            a16 = b16 ^ (~b17 & b18)
            a17 = b17 ^ (~b18 & b19)
            a18 = b18 ^ (~b19 & b15)
            a19 = b19 ^ (~b15 & b16)
            a20 = b20 ^ (~b21 & b22)
            a21 = b21 ^ (~b22 & b23)
            a22 = b22 ^ (~b23 & b24)
            a23 = b23 ^ (~b24 & b20)
            a24 = b24 ^ (~b20 & b21)
            // ι
            a00 ^= Self.roundConstants[round]
        }
        lanes = (a00, a01, a02, a03, a04, a05, a06, a07, a08, a09, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24)
    }

    /// Reads and writes lanes by index through the tuple's contiguous storage.
    private mutating func withLanes<R>(_ body: (UnsafeMutablePointer<UInt64>) -> R) -> R {
        withUnsafeMutablePointer(to: &lanes) { tuple in
            tuple.withMemoryRebound(to: UInt64.self, capacity: 25) { body($0) }
        }
    }

    /// XORs `byte` into the state at byte offset `index` (lanes are little-endian).
    public mutating func xor(byte: UInt8, at index: Int) {
        precondition(index >= 0 && index < 200, "Keccak state offset out of range")
        withLanes { $0[index &>> 3] ^= UInt64(byte) &<< UInt64((index & 7) &<< 3) }
    }

    /// XORs a whole 64-bit lane.
    public mutating func xor(lane: UInt64, at index: Int) {
        precondition(index >= 0 && index < 25, "Keccak lane out of range")
        withLanes { $0[index] ^= lane }
    }

    /// Replaces the byte at offset `index` (STROBE's overwrite and squeeze).
    public mutating func set(byte: UInt8, at index: Int) {
        precondition(index >= 0 && index < 200, "Keccak state offset out of range")
        let shift = UInt64((index & 7) &<< 3)
        withLanes { $0[index &>> 3] = $0[index &>> 3] & ~(0xFF &<< shift) | UInt64(byte) &<< shift }
    }

    /// The byte at offset `index`.
    public func byte(at index: Int) -> UInt8 {
        precondition(index >= 0 && index < 200, "Keccak state offset out of range")
        return withUnsafeBytes(of: lanes) { raw in
            let lane = raw.load(fromByteOffset: (index &>> 3) &* 8, as: UInt64.self)
            return UInt8(truncatingIfNeeded: lane &>> UInt64((index & 7) &<< 3))
        }
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
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in update(buffer) }
        if handled != nil { return }
        for byte in bytes { absorb(byte) }
    }

    private mutating func absorb(_ byte: UInt8) {
        state.xor(byte: byte, at: position)
        position += 1
        if position == Self.rate {
            state.permute()
            position = 0
        }
    }

    private mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        // Whole blocks go in a lane (8 little-endian bytes) at a time.
        if position == 0 {
            let raw = UnsafeRawBufferPointer(buffer)
            while buffer.count - offset >= Self.rate {
                for lane in 0..<(Self.rate / 8) {
                    state.xor(lane: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + lane * 8, as: UInt64.self)), at: lane)
                }
                state.permute()
                offset += Self.rate
            }
        }
        while offset < buffer.count {
            absorb(buffer[offset])
            offset += 1
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
