/// A SCALE value whose shape comes from a runtime's type registry rather than from a Swift type: what a
/// storage item, constant or event holds, or the arguments of a call to encode.
///
/// `PortableRegistry.decodeValue(of:from:)` produces these and
/// ``PortableRegistry/encodeValue(_:as:)`` checks one against a type and encodes it. Byte vectors and byte
/// arrays (`Vec<u8>`, `[u8; 32]`) are ``bytes(_:)``; integers up to 128 bits are ``unsigned(_:)`` or
/// ``signed(_:)``, compacts included.
///
/// ```swift
/// // Balances.transfer_keep_alive(dest: MultiAddress::Id(bob), value: 12345)
/// let arguments: [SCALEValue] = [.variant(name: "Id", fields: [SCALEField(.bytes(bob))]), .unsigned(12345)]
/// ```
public enum SCALEValue: Sendable, Hashable {
    case bool(Bool)
    case char(Unicode.Scalar)
    case string(String)
    /// `u8` … `u128`, and any compact.
    case unsigned(UInt128)
    /// `i8` … `i128`.
    case signed(Int128)
    /// `u256` or `i256`: 32 little-endian bytes (two's complement when signed).
    case wideInteger(littleEndian: [UInt8], signed: Bool)
    /// `Vec<u8>` or `[u8; N]`.
    case bytes([UInt8])
    /// `Vec<T>` or `[T; N]` of anything but bytes.
    case sequence([SCALEValue])
    /// A struct (named fields) or a tuple or tuple struct (unnamed fields).
    case composite([SCALEField])
    /// An enum variant. To encode, either the name or the index is enough: a non-empty name wins.
    case variant(name: String, index: UInt8 = 0, fields: [SCALEField] = [])
    /// A `BitVec`: the number of bits and the store words' bytes as encoded.
    case bitSequence(bitCount: UInt64, storage: [UInt8])

    /// The value of the field called `name` of a struct or variant.
    public subscript(name: String) -> SCALEValue? {
        fields?.first { $0.name == name }?.value
    }

    /// The fields of a composite or a variant.
    public var fields: [SCALEField]? {
        switch self {
        case .composite(let fields): fields
        case .variant(_, _, let fields): fields
        default: nil
        }
    }

    /// The value as an unsigned integer, looking through newtype wrappers (a composite with one field, such as
    /// `ExtraFlags(u128)` or `Perbill(u32)`).
    public var unsignedInteger: UInt128? {
        switch self {
        case .unsigned(let value): value
        case .composite(let fields) where fields.count == 1: fields[0].value.unsignedInteger
        default: nil
        }
    }

    /// The value as bytes, looking through newtype wrappers (`AccountId32([u8; 32])`, `H256`).
    public var byteArray: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .composite(let fields) where fields.count == 1: fields[0].value.byteArray
        default: nil
        }
    }

    /// The text of a `str` value, looking through newtype wrappers (`Cow<'static, str>`).
    public var string: String? {
        switch self {
        case .string(let text): text
        case .composite(let fields) where fields.count == 1: fields[0].value.string
        default: nil
        }
    }

    /// The name of an enum variant value.
    public var variantName: String? {
        if case .variant(let name, _, _) = self { return name }
        return nil
    }
}

/// A field of a ``SCALEValue/composite(_:)`` or ``SCALEValue/variant(name:index:fields:)``: unnamed in tuples.
public struct SCALEField: Sendable, Hashable {
    /// The field's name; nil in tuples and tuple structs.
    public var name: String?
    /// The field's value.
    public var value: SCALEValue

    /// A field; give names to match a struct's fields by name, leave them out to match positions.
    public init(name: String? = nil, _ value: SCALEValue) {
        self.name = name
        self.value = value
    }
}
