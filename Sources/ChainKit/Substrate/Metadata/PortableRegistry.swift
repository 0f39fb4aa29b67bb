/// The id of a type in a runtime's ``PortableRegistry`` (scale-info's `UntrackedSymbol`, a compact `u32` on the wire).
///
/// Every type reference in metadata (a call's arguments, a storage value, a signed extension) is one of
/// these; ``PortableRegistry/resolve(_:)`` turns it into the type's definition.
public struct MetadataTypeID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    /// The id: the type's position in the registry.
    public let rawValue: UInt32

    /// The id `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The id written as a number, as in `let accountID: MetadataTypeID = 0`.
    public init(integerLiteral value: UInt32) { rawValue = value }

    /// Ids order by position.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` and the number, as in `#42`.
    public var description: String { "#\(rawValue)" }

    init(from decoder: inout SCALEDecoder) throws {
        rawValue = try decoder.decodeCompact(UInt32.self)
    }
}

/// The type registry of a runtime (scale-info's `PortableRegistry`): every type the metadata mentions,
/// each with its Rust path, generic parameters and shape.
///
/// Type ids are positions: scale-info numbers the types 0, 1, 2, … in order, and the decoder refuses a
/// registry that does not.
public struct PortableRegistry: Sendable {
    /// The types, in id order (`types[n].id == n`).
    public let types: [PortableType]
    /// Whether each type encodes to no bytes, decided once for the whole registry (see ``isZeroSized(_:)``).
    let zeroSized: [Bool]

    /// The type with id `id`.
    /// - Throws: `invalid_scale` when the registry has no such type.
    public func resolve(_ id: MetadataTypeID) throws -> PortableType {
        guard id.rawValue < types.count else {
            throw ChainKitError(.invalidSCALE, "type \(id) is not in the registry of \(types.count) types")
        }
        return types[Int(id.rawValue)]
    }

    /// The type with id `id`, or nil.
    public subscript(id: MetadataTypeID) -> PortableType? {
        id.rawValue < types.count ? types[Int(id.rawValue)] : nil
    }

    /// The first type whose path is `path` (for example `["sp_runtime", "multiaddress", "MultiAddress"]`).
    public func first(path: [String]) -> PortableType? {
        types.first { $0.path == path }
    }

    init(from decoder: inout SCALEDecoder) throws {
        types = try decoder.decodeVector { decoder in try PortableType(from: &decoder) }
        for (index, type) in types.enumerated() {
            guard type.id.rawValue == index else {
                throw ChainKitError(.invalidSCALE, "type registry entry \(index) has id \(type.id); ids must be 0, 1, 2, …")
            }
            for reference in type.references where reference.rawValue >= types.count {
                throw ChainKitError(.invalidSCALE, "type \(type.id) refers to \(reference), which the registry does not have")
            }
        }
        zeroSized = Self.zeroSizedFlags(types)
    }

    /// For each type, whether it encodes to no bytes. Each type is decided once (shared fields are not walked
    /// again); a type on a cycle, or deeper than ``maximumNesting`` below the type asked about, counts as sized.
    private static func zeroSizedFlags(_ types: [PortableType]) -> [Bool] {
        enum State { case unknown, deciding, sized, zeroSized }
        var states = [State](repeating: .unknown, count: types.count)
        func decide(_ id: MetadataTypeID, depth: Int) -> Bool {
            let index = Int(id.rawValue)
            switch states[index] {
            case .zeroSized: return true
            case .sized, .deciding: return false
            case .unknown: break
            }
            guard depth < maximumNesting else { return false }
            states[index] = .deciding
            let zero: Bool
            switch types[index].definition {
            case .composite(let fields): zero = fields.allSatisfy { decide($0.type, depth: depth + 1) }
            case .tuple(let elements): zero = elements.allSatisfy { decide($0, depth: depth + 1) }
            case .array(let length, let element): zero = length == 0 || decide(element, depth: depth + 1)
            case .variant, .sequence, .primitive, .compact, .bitSequence: zero = false
            }
            states[index] = zero ? .zeroSized : .sized
            return zero
        }
        return types.map { decide($0.id, depth: 0) }
    }
}

/// One type of the registry: scale-info's `PortableType` (its id) and `Type` (the rest).
public struct PortableType: Sendable, Hashable {
    /// The type's id: its position in the registry.
    public let id: MetadataTypeID
    /// The Rust path, such as `["frame_system", "AccountInfo"]`; empty for primitives, tuples, arrays and sequences.
    public let path: [String]
    /// The generic parameters (`Nonce`, `AccountData`, …) with the type each was instantiated with.
    public let parameters: [TypeParameter]
    /// The shape of the type.
    public let definition: TypeDefinition
    /// The type's documentation.
    public let docs: [String]

    /// The last path segment (`AccountInfo`), or nil for an anonymous type.
    public var name: String? { path.last }

    /// Every type id this type refers to: its parameters and the types inside its definition.
    var references: [MetadataTypeID] {
        let inside: [MetadataTypeID]
        switch definition {
        case .composite(let fields): inside = fields.map(\.type)
        case .variant(let variants): inside = variants.flatMap { $0.fields.map(\.type) }
        case .sequence(let element), .array(_, let element), .compact(let element): inside = [element]
        case .tuple(let elements): inside = elements
        case .primitive: inside = []
        case .bitSequence(let store, let order): inside = [store, order]
        }
        return parameters.compactMap(\.type) + inside
    }

    init(from decoder: inout SCALEDecoder) throws {
        id = try MetadataTypeID(from: &decoder)
        path = try decoder.decode([String].self)
        parameters = try decoder.decodeVector { decoder in try TypeParameter(from: &decoder) }
        definition = try TypeDefinition(from: &decoder)
        docs = try decoder.decode([String].self)
    }
}

/// A generic parameter of a type: its name and, unless it was erased, the type it stands for.
public struct TypeParameter: Sendable, Hashable {
    /// The parameter's name, such as `Balance`.
    public let name: String
    /// The type it was instantiated with, or nil when scale-info left it out.
    public let type: MetadataTypeID?

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        type = try decoder.decodeOption { decoder in try MetadataTypeID(from: &decoder) }
    }
}

/// The shape of a type (scale-info's `TypeDef`), which decides how its values are SCALE-encoded.
public enum TypeDefinition: Sendable, Hashable {
    /// A struct, tuple struct or unit struct: its fields in order.
    case composite([TypeField])
    /// An enum: each variant with its one-byte index.
    case variant([TypeVariant])
    /// `Vec<T>`: a compact length, then the elements.
    case sequence(of: MetadataTypeID)
    /// `[T; length]`: exactly `length` elements, no length prefix.
    case array(length: UInt32, of: MetadataTypeID)
    /// A tuple: its element types in order (the empty tuple `()` has none).
    case tuple([MetadataTypeID])
    /// A built-in scalar.
    case primitive(PrimitiveType)
    /// `Compact<T>`: the value of `T` in SCALE's compact integer form.
    case compact(of: MetadataTypeID)
    /// `BitVec<Store, Order>` from the bitvec crate.
    case bitSequence(store: MetadataTypeID, order: MetadataTypeID)

    init(from decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        switch try decoder.decodeByte() {
        case 0: self = .composite(try decoder.decodeVector { decoder in try TypeField(from: &decoder) })
        case 1: self = .variant(try decoder.decodeVector { decoder in try TypeVariant(from: &decoder) })
        case 2: self = .sequence(of: try MetadataTypeID(from: &decoder))
        case 3:
            let length = try decoder.decodeInteger(UInt32.self)
            self = .array(length: length, of: try MetadataTypeID(from: &decoder))
        case 4: self = .tuple(try decoder.decodeVector { decoder in try MetadataTypeID(from: &decoder) })
        case 5: self = .primitive(try PrimitiveType(from: &decoder))
        case 6: self = .compact(of: try MetadataTypeID(from: &decoder))
        case 7:
            let store = try MetadataTypeID(from: &decoder)
            self = .bitSequence(store: store, order: try MetadataTypeID(from: &decoder))
        case let other:
            throw ChainKitError(.invalidSCALE, "type definition tag \(other) at offset \(at) is not 0...7")
        }
    }
}

/// A field of a struct or of an enum variant. Tuple-struct fields have no name.
public struct TypeField: Sendable, Hashable {
    /// The field's name; nil in tuple structs and tuple variants.
    public let name: String?
    /// The field's type.
    public let type: MetadataTypeID
    /// The field's type as written in the Rust source (`T::Balance`, `AccountIdLookupOf<T>`).
    public let typeName: String?
    /// The field's documentation.
    public let docs: [String]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String?.self)
        type = try MetadataTypeID(from: &decoder)
        typeName = try decoder.decode(String?.self)
        docs = try decoder.decode([String].self)
    }
}

/// A variant of an enum. Its `index` is the byte written on the wire, which need not equal its position.
public struct TypeVariant: Sendable, Hashable {
    /// The variant's name, such as `transfer_keep_alive` for a call.
    public let name: String
    /// Its fields, in encoding order.
    public let fields: [TypeField]
    /// The byte that selects this variant on the wire.
    public let index: UInt8
    /// The variant's documentation.
    public let docs: [String]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        fields = try decoder.decodeVector { decoder in try TypeField(from: &decoder) }
        index = try decoder.decodeByte()
        docs = try decoder.decode([String].self)
    }
}

/// The built-in scalar types of scale-info, in their wire order.
public enum PrimitiveType: UInt8, Sendable, Hashable, CaseIterable {
    case bool, char, str, u8, u16, u32, u64, u128, u256, i8, i16, i32, i64, i128, i256

    /// The encoded size in bytes, or nil for `str` (a length-prefixed vector).
    public var byteCount: Int? {
        switch self {
        case .bool, .u8, .i8: 1
        case .u16, .i16: 2
        case .char, .u32, .i32: 4
        case .u64, .i64: 8
        case .u128, .i128: 16
        case .u256, .i256: 32
        case .str: nil
        }
    }

    /// Whether this is one of the unsigned integer types.
    public var isUnsigned: Bool { [.u8, .u16, .u32, .u64, .u128, .u256].contains(self) }

    /// Whether this is one of the signed integer types.
    public var isSigned: Bool { [.i8, .i16, .i32, .i64, .i128, .i256].contains(self) }

    init(from decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        let tag = try decoder.decodeByte()
        guard let primitive = PrimitiveType(rawValue: tag) else {
            throw ChainKitError(.invalidSCALE, "primitive type tag \(tag) at offset \(at) is not 0...14")
        }
        self = primitive
    }
}
