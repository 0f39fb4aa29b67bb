// SCALE encodings of standard library types: fixed-width integers (little-endian), Bool, String (UTF-8 as
// a byte vector), Array (`Vec<T>`) and Optional (`Option<T>`). `Int` and `UInt` are left out on purpose:
// SCALE has no platform-width integer, so a field must say which width it is.

extension SCALEEncodable where Self: FixedWidthInteger {
    public func encode(to encoder: inout SCALEEncoder) { encoder.encodeInteger(self) }
}

extension SCALEDecodable where Self: FixedWidthInteger {
    public init(from decoder: inout SCALEDecoder) throws { self = try decoder.decodeInteger(Self.self) }
}

extension UInt8: SCALECodable {}
extension UInt16: SCALECodable {}
extension UInt32: SCALECodable {}
extension UInt64: SCALECodable {}
extension UInt128: SCALECodable {}
extension Int8: SCALECodable {}
extension Int16: SCALECodable {}
extension Int32: SCALECodable {}
extension Int64: SCALECodable {}
extension Int128: SCALECodable {}

extension Bool: SCALECodable {
    public func encode(to encoder: inout SCALEEncoder) { encoder.encodeBool(self) }
    public init(from decoder: inout SCALEDecoder) throws { self = try decoder.decodeBool() }
}

extension String: SCALECodable {
    /// A string is its UTF-8 bytes as a `Vec<u8>`.
    public func encode(to encoder: inout SCALEEncoder) { encoder.encodeBytes(utf8) }

    /// - Throws: `invalid_scale` also when the bytes are not valid UTF-8.
    public init(from decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        guard let text = String(validating: try decoder.decodeBytes(), as: UTF8.self) else {
            throw ChainKitError(.invalidSCALE, "string at offset \(at) is not valid UTF-8")
        }
        self = text
    }
}

extension Array: SCALEEncodable where Element: SCALEEncodable {
    /// A `Vec<T>`: the compact element count, then each element.
    public func encode(to encoder: inout SCALEEncoder) {
        if let bytes = self as? [UInt8] {
            encoder.encodeBytes(bytes)
        } else {
            encoder.encodeVector(self) { encoder, element in element.encode(to: &encoder) }
        }
    }
}

extension Array: SCALEDecodable where Element: SCALEDecodable {
    public init(from decoder: inout SCALEDecoder) throws {
        // Byte vectors are the common case (call data, memos); read them in one slice.
        if Element.self == UInt8.self, let bytes = try decoder.decodeBytes() as? [Element] {
            self = bytes
        } else {
            self = try decoder.decodeVector { try Element(from: &$0) }
        }
    }
}

extension Optional: SCALEEncodable where Wrapped: SCALEEncodable {
    /// An `Option<T>`: `00`, or `01` followed by the value.
    ///
    /// `Bool?` also takes two bytes (`01 00` for `Some(false)`), as parity-scale-codec's generic `Option<bool>`
    /// does. The one-byte form some specifications mention is a separate Rust type; see ``SCALEOptionBool``.
    public func encode(to encoder: inout SCALEEncoder) {
        encoder.encodeOption(self) { encoder, value in value.encode(to: &encoder) }
    }
}

extension Optional: SCALEDecodable where Wrapped: SCALEDecodable {
    public init(from decoder: inout SCALEDecoder) throws {
        self = try decoder.decodeOption { try Wrapped(from: &$0) }
    }
}

/// parity-scale-codec's `OptionBool`: an optional bool in one byte (`00` none, `01` true, `02` false).
///
/// Runtime types opt into this form explicitly; a plain `Option<bool>` field is the two-byte `Bool?`.
public struct SCALEOptionBool: SCALECodable, Hashable, Sendable {
    /// The optional bool.
    public var value: Bool?

    /// Wraps `value`.
    public init(_ value: Bool?) { self.value = value }

    public func encode(to encoder: inout SCALEEncoder) {
        encoder.encodeInteger(UInt8(value.map { $0 ? 1 : 2 } ?? 0))
    }

    /// - Throws: `invalid_scale` for a byte other than 0, 1 or 2.
    public init(from decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        switch try decoder.decodeByte() {
        case 0: value = nil
        case 1: value = true
        case 2: value = false
        case let other: throw ChainKitError(.invalidSCALE, "OptionBool byte \(other) at offset \(at) is not 0, 1 or 2")
        }
    }
}
