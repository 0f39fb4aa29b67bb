/// The EVM's 256-bit machine word: four 64-bit limbs, least significant first, a plain value type.
///
/// ChainKit's `UInt256` (two `UInt128` halves) carries transaction fields; this one is built for the
/// interpreter's hot loop: every operation is `@inlinable`, wraps modulo 2^256 as the EVM does, and
/// never allocates. Signed operations read the word as two's complement.
@frozen
public struct U256: Sendable, Hashable {
    /// Limbs, `w0` least significant.
    public var w0: UInt64
    public var w1: UInt64
    public var w2: UInt64
    public var w3: UInt64

    @inlinable @inline(__always)
    public init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
        self.w3 = w3
    }

    @inlinable @inline(__always)
    public init(_ value: UInt64) { self.init(w0: value, w1: 0, w2: 0, w3: 0) }

    /// A non-negative `Int`; traps on a negative one (a programmer error).
    @inlinable @inline(__always)
    public init(_ value: Int) {
        precondition(value >= 0, "U256 cannot hold a negative Int")
        self.init(UInt64(value))
    }

    public static let zero = U256(w0: 0, w1: 0, w2: 0, w3: 0)
    public static let one = U256(w0: 1, w1: 0, w2: 0, w3: 0)
    public static let max = U256(w0: .max, w1: .max, w2: .max, w3: .max)

    @inlinable public var isZero: Bool { (w0 | w1 | w2 | w3) == 0 }

    /// The sign bit (bit 255) as two's complement reads it.
    @inlinable public var isNegative: Bool { w3 >> 63 == 1 }

    /// The value as a `UInt64` when it fits, else `nil`.
    @inlinable public var uint64: UInt64? { (w1 | w2 | w3) == 0 ? w0 : nil }

    /// The value as an `Int` when it fits in 63 bits, else `nil` (offsets, sizes, gas).
    @inlinable public var int: Int? { (w1 | w2 | w3) == 0 && w0 <= UInt64(Int.max) ? Int(w0) : nil }

    /// The value clamped to `Int.max`: sizes past any memory the machine could pay for stay out of range.
    @inlinable public var clampedInt: Int { int ?? .max }

    /// Bits needed to write the value (0 for zero).
    @inlinable public var bitWidth: Int {
        if w3 != 0 { return 256 - w3.leadingZeroBitCount }
        if w2 != 0 { return 192 - w2.leadingZeroBitCount }
        if w1 != 0 { return 128 - w1.leadingZeroBitCount }
        return 64 - w0.leadingZeroBitCount
    }

    /// Limb `index` (0 least significant).
    @inlinable @inline(__always)
    public subscript(limb index: Int) -> UInt64 {
        get {
            switch index {
            case 0: w0
            case 1: w1
            case 2: w2
            default: w3
            }
        }
        set {
            switch index {
            case 0: w0 = newValue
            case 1: w1 = newValue
            case 2: w2 = newValue
            default: w3 = newValue
            }
        }
    }
}

extension U256: Comparable {
    @inlinable @inline(__always)
    public static func < (lhs: U256, rhs: U256) -> Bool {
        if lhs.w3 != rhs.w3 { return lhs.w3 < rhs.w3 }
        if lhs.w2 != rhs.w2 { return lhs.w2 < rhs.w2 }
        if lhs.w1 != rhs.w1 { return lhs.w1 < rhs.w1 }
        return lhs.w0 < rhs.w0
    }
}

extension U256: ExpressibleByIntegerLiteral {
    @inlinable
    public init(integerLiteral value: UInt64) { self.init(value) }
}
