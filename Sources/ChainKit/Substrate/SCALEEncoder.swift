/// An append-only writer of SCALE bytes.
///
/// ```swift
/// var encoder = SCALEEncoder()
/// encoder.encode(UInt32(7))                     // 07 00 00 00
/// encoder.encodeCompact(UInt64(1_000))          // a1 0f
/// encoder.encodeBytes(Array("hubd".utf8))       // 10 68 75 62 64
/// encoder.encode(Optional<UInt8>.none)          // 00
/// let bytes = encoder.bytes
/// ```
public struct SCALEEncoder: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty encoder, with room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends any encodable value.
    public mutating func encode(_ value: some SCALEEncodable) {
        value.encode(to: &self)
    }

    /// Appends a fixed-width integer, little-endian, in exactly `bitWidth / 8` bytes.
    public mutating func encodeInteger<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    /// Appends `01` for true and `00` for false.
    public mutating func encodeBool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Appends bytes as they are, with no length: fixed-size arrays such as `[u8; 32]`, hashes, account ids.
    public mutating func encodeRaw(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends a byte vector (`Vec<u8>`): its compact length, then the bytes.
    public mutating func encodeBytes(_ vector: some Collection<UInt8>) {
        encodeCompact(UInt64(vector.count))
        bytes.append(contentsOf: vector)
    }

    /// Appends a vector (`Vec<T>`): the compact element count, then each element written by `encodeElement`.
    public mutating func encodeVector<C: Collection>(_ elements: C, _ encodeElement: (inout SCALEEncoder, C.Element) -> Void) {
        encodeCompact(UInt64(elements.count))
        for element in elements {
            encodeElement(&self, element)
        }
    }

    /// Appends an `Option<T>`: `00` for nil, or `01` followed by the value written by `encodeValue`.
    public mutating func encodeOption<T>(_ value: T?, _ encodeValue: (inout SCALEEncoder, T) -> Void) {
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        encodeValue(&self, value)
    }
}
