// Decoding and encoding SCALE values by a registry type id, plus the type questions extrinsic assembly asks
// (is this type zero-sized? what is it called?).
//
// Registries come from untrusted nodes, so every walk is bounded: at most `maximumNesting` type levels deep (a
// type that contains itself with no length prefix in between would otherwise recurse forever), array lengths are
// checked against the bytes left before anything is allocated, and a decode visits at most a number of types
// proportional to its input (zero-sized types shared down a deep tree would otherwise take exponential time).

extension PortableRegistry {
    /// How many type levels a value may nest. Real values stay far below it (`AccountInfo` is 3 levels; a call
    /// wrapped in a batch adds about 4 per level).
    public static let maximumNesting = 64

    // MARK: Type questions

    /// Whether values of type `id` encode to no bytes: unit structs, empty tuples, `[T; 0]`, and composites of
    /// only such fields. Signed extensions use these for "contributes nothing".
    /// - Throws: `invalid_scale` for a type id the registry does not have.
    public func isZeroSized(_ id: MetadataTypeID) throws -> Bool {
        _ = try resolve(id)
        return zeroSized[Int(id.rawValue)]
    }

    /// A Rust-like name for type `id`, for messages and tests: `u32`, `Vec<u8>`, `[u8; 32]`, `Compact<u128>`,
    /// `(u32, bool)`, `Option<AccountId32>`, `MultiAddress<AccountId32, ()>`.
    public func displayName(of id: MetadataTypeID) -> String {
        var budget = 256  // names of at most this many types; "…" after that
        return displayName(id, depth: 0, budget: &budget)
    }

    private func displayName(_ id: MetadataTypeID, depth: Int, budget: inout Int) -> String {
        budget -= 1
        guard budget >= 0, depth < Self.maximumNesting else { return "…" }
        guard let type = self[id] else { return "\(id)" }
        func name(_ id: MetadataTypeID) -> String { displayName(id, depth: depth + 1, budget: &budget) }
        if let typeName = type.name {
            let parameters = type.parameters.map { parameter in parameter.type.map(name) ?? parameter.name }
            return parameters.isEmpty ? typeName : "\(typeName)<\(parameters.joined(separator: ", "))>"
        }
        switch type.definition {
        case .primitive(let primitive): return "\(primitive)"
        case .sequence(let element): return "Vec<\(name(element))>"
        case .array(let length, let element): return "[\(name(element)); \(length)]"
        case .compact(let inner): return "Compact<\(name(inner))>"
        case .tuple(let elements): return "(\(elements.map(name).joined(separator: ", ")))"
        case .bitSequence(let store, let order): return "BitVec<\(name(store)), \(name(order))>"
        case .composite, .variant: return "\(id)"
        }
    }

    /// Whether `id` is the primitive `u8` (so a sequence or array of it is bytes).
    private func isByte(_ id: MetadataTypeID) -> Bool {
        if case .primitive(.u8) = self[id]?.definition { return true }
        return false
    }

    /// The unsigned primitive a `Compact<T>` carries, looking through single-field wrappers such as `Perbill(u32)`.
    private func compactPrimitive(_ id: MetadataTypeID, depth: Int) throws -> PrimitiveType {
        guard depth < Self.maximumNesting else { throw nestingError(id) }
        switch try resolve(id).definition {
        case .primitive(let primitive) where primitive.isUnsigned && primitive != .u256:
            return primitive
        case .composite(let fields) where fields.count == 1:
            return try compactPrimitive(fields[0].type, depth: depth + 1)
        case .tuple(let elements) where elements.count == 1:
            return try compactPrimitive(elements[0], depth: depth + 1)
        default:
            throw ChainKitError(.invalidSCALE, "Compact<\(displayName(of: id))> is not a compact of an integer up to 128 bits")
        }
    }

    private func nestingError(_ id: MetadataTypeID) -> ChainKitError {
        ChainKitError(.invalidSCALE, "type \(id) nests more than \(Self.maximumNesting) levels deep")
    }

    // MARK: Decoding

    /// Reads one value of type `type` at the decoder's position.
    /// - Throws: `invalid_scale` for bytes that do not encode the type, or a type the registry cannot describe;
    ///   `out_of_range` for a compact too large for its integer type.
    public func decodeValue(of type: MetadataTypeID, from decoder: inout SCALEDecoder) throws -> SCALEValue {
        var budget = Self.minimumDecodeBudget + decoder.remaining * 16
        return try decodeValue(type, from: &decoder, depth: 0, budget: &budget)
    }

    /// How many types a decode may visit beyond 16 per input byte: room for zero-sized fields and short arrays of them.
    private static let minimumDecodeBudget = 1 << 16
    /// The longest array of zero-sized elements a decode accepts (they take no bytes, so no length check limits them).
    private static let maximumZeroSizedArray: UInt32 = 1024

    /// Decodes exactly one value of type `type` from `bytes`.
    /// - Throws: as the decoder form of `decodeValue(of:from:)`, and `invalid_scale` for bytes left over.
    public func decodeValue(of type: MetadataTypeID, from bytes: some Collection<UInt8>) throws -> SCALEValue {
        var decoder = SCALEDecoder(bytes)
        let value = try decodeValue(of: type, from: &decoder)
        try decoder.finish()
        return value
    }

    private func decodeValue(_ id: MetadataTypeID, from decoder: inout SCALEDecoder, depth: Int, budget: inout Int) throws -> SCALEValue {
        guard depth < Self.maximumNesting else { throw nestingError(id) }
        budget -= 1
        guard budget >= 0 else {
            throw ChainKitError(.invalidSCALE, "decoding \(displayName(of: id)) visits too many types for the bytes given")
        }
        switch try resolve(id).definition {
        case .composite(let fields):
            return .composite(
                try fields.map { field in
                    SCALEField(name: field.name, try decodeValue(field.type, from: &decoder, depth: depth + 1, budget: &budget))
                }
            )
        case .tuple(let elements):
            return .composite(try elements.map { SCALEField(try decodeValue($0, from: &decoder, depth: depth + 1, budget: &budget)) })
        case .variant(let variants):
            let at = decoder.offset
            let index = try decoder.decodeByte()
            guard let variant = variants.first(where: { $0.index == index }) else {
                throw ChainKitError(.invalidSCALE, "variant index \(index) at offset \(at) is not one of \(displayName(of: id))")
            }
            let fields = try variant.fields.map { field in
                SCALEField(name: field.name, try decodeValue(field.type, from: &decoder, depth: depth + 1, budget: &budget))
            }
            return .variant(name: variant.name, index: index, fields: fields)
        case .sequence(let element):
            if isByte(element) { return .bytes(try decoder.decodeBytes()) }
            return .sequence(try decoder.decodeVector { decoder in try decodeValue(element, from: &decoder, depth: depth + 1, budget: &budget) })
        case .array(let length, let element):
            if isByte(element) { return .bytes(try decoder.decodeRaw(count: Int(length))) }
            return .sequence(try decodeArray(length: length, of: element, from: &decoder, depth: depth, budget: &budget))
        case .primitive(let primitive):
            return try decodePrimitive(primitive, from: &decoder)
        case .compact(let inner):
            return .unsigned(try decodeCompact(of: compactPrimitive(inner, depth: depth + 1), from: &decoder))
        case .bitSequence(let store, _):
            let storeBytes = try bitStoreWidth(store)
            let at = decoder.offset
            let bitCount = try decoder.decodeCompact(UInt64.self)
            let words = bitCount / UInt64(storeBytes * 8) + (bitCount % UInt64(storeBytes * 8) == 0 ? 0 : 1)
            guard words <= UInt64(decoder.remaining / storeBytes) else {
                throw ChainKitError(.invalidSCALE, "bit sequence of \(bitCount) bits at offset \(at) exceeds the \(decoder.remaining) bytes left")
            }
            return .bitSequence(bitCount: bitCount, storage: try decoder.decodeRaw(count: Int(words) * storeBytes))
        }
    }

    private func decodeArray(
        length: UInt32,
        of element: MetadataTypeID,
        from decoder: inout SCALEDecoder,
        depth: Int,
        budget: inout Int
    ) throws -> [SCALEValue] {
        // Elements of at least one byte cannot outnumber the bytes left; zero-sized ones are capped instead.
        let zeroSized = try isZeroSized(element)
        guard zeroSized ? length <= Self.maximumZeroSizedArray : UInt64(length) <= UInt64(decoder.remaining) else {
            throw ChainKitError(.invalidSCALE, "array of \(length) elements at offset \(decoder.offset) exceeds the bytes left")
        }
        var values: [SCALEValue] = []
        values.reserveCapacity(Int(length))
        for _ in 0..<length {
            values.append(try decodeValue(element, from: &decoder, depth: depth + 1, budget: &budget))
        }
        return values
    }

    private func decodePrimitive(_ primitive: PrimitiveType, from decoder: inout SCALEDecoder) throws -> SCALEValue {
        switch primitive {
        case .bool: return .bool(try decoder.decodeBool())
        case .char:
            let at = decoder.offset
            let raw = try decoder.decodeInteger(UInt32.self)
            guard let scalar = Unicode.Scalar(raw) else {
                throw ChainKitError(.invalidSCALE, "char \(raw) at offset \(at) is not a Unicode scalar")
            }
            return .char(scalar)
        case .str: return .string(try decoder.decode(String.self))
        case .u8: return .unsigned(UInt128(try decoder.decodeInteger(UInt8.self)))
        case .u16: return .unsigned(UInt128(try decoder.decodeInteger(UInt16.self)))
        case .u32: return .unsigned(UInt128(try decoder.decodeInteger(UInt32.self)))
        case .u64: return .unsigned(UInt128(try decoder.decodeInteger(UInt64.self)))
        case .u128: return .unsigned(try decoder.decodeInteger(UInt128.self))
        case .i8: return .signed(Int128(try decoder.decodeInteger(Int8.self)))
        case .i16: return .signed(Int128(try decoder.decodeInteger(Int16.self)))
        case .i32: return .signed(Int128(try decoder.decodeInteger(Int32.self)))
        case .i64: return .signed(Int128(try decoder.decodeInteger(Int64.self)))
        case .i128: return .signed(try decoder.decodeInteger(Int128.self))
        case .u256: return .wideInteger(littleEndian: try decoder.decodeRaw(count: 32), signed: false)
        case .i256: return .wideInteger(littleEndian: try decoder.decodeRaw(count: 32), signed: true)
        }
    }

    private func decodeCompact(of primitive: PrimitiveType, from decoder: inout SCALEDecoder) throws -> UInt128 {
        switch primitive {
        case .u8: UInt128(try decoder.decodeCompact(UInt8.self))
        case .u16: UInt128(try decoder.decodeCompact(UInt16.self))
        case .u32: UInt128(try decoder.decodeCompact(UInt32.self))
        case .u64: UInt128(try decoder.decodeCompact(UInt64.self))
        default: try decoder.decodeCompact(UInt128.self)
        }
    }

    /// The byte width of a bit sequence's store type (`u8`, `u16`, `u32` or `u64`).
    private func bitStoreWidth(_ store: MetadataTypeID) throws -> Int {
        switch try resolve(store).definition {
        case .primitive(let primitive) where [.u8, .u16, .u32, .u64].contains(primitive):
            return primitive.byteCount ?? 1
        default:
            throw ChainKitError(.invalidSCALE, "bit sequence store \(displayName(of: store)) is not u8, u16, u32 or u64")
        }
    }

    // MARK: Encoding

    /// The SCALE encoding of `value` as type `type`, checking that the value has the type's shape.
    ///
    /// Structs match fields by name when every given field is named, by position otherwise. A struct or tuple
    /// with a single field also takes that field's value directly (`.bytes(accountID)` for an `AccountId32`).
    /// - Throws: `invalid_scale` when the value does not have the type's shape; `out_of_range` when an integer
    ///   does not fit its type.
    public func encodeValue(_ value: SCALEValue, as type: MetadataTypeID) throws -> [UInt8] {
        var encoder = SCALEEncoder()
        try encodeValue(value, as: type, to: &encoder)
        return encoder.bytes
    }

    /// Appends the SCALE encoding of `value` as type `type` to `encoder`.
    /// - Throws: as ``encodeValue(_:as:)``; the encoder may then hold a partial value.
    public func encodeValue(_ value: SCALEValue, as type: MetadataTypeID, to encoder: inout SCALEEncoder) throws {
        try encode(value, as: type, to: &encoder, depth: 0)
    }

    private func mismatch(_ value: SCALEValue, _ id: MetadataTypeID, _ detail: String = "") -> ChainKitError {
        ChainKitError(.invalidSCALE, "value \(value) does not fit type \(displayName(of: id)) (\(id))\(detail.isEmpty ? "" : ": " + detail)")
    }

    private func encode(_ value: SCALEValue, as id: MetadataTypeID, to encoder: inout SCALEEncoder, depth: Int) throws {
        guard depth < Self.maximumNesting else { throw nestingError(id) }
        switch try resolve(id).definition {
        case .composite(let fields):
            if case .composite(let given) = value {
                try encodeFields(given, as: fields.map { ($0.name, $0.type) }, value: value, id: id, to: &encoder, depth: depth)
            } else if fields.count == 1 {
                try encode(value, as: fields[0].type, to: &encoder, depth: depth + 1)
            } else {
                throw mismatch(value, id, "a struct of \(fields.count) fields needs a composite value")
            }
        case .tuple(let elements):
            if case .composite(let given) = value {
                try encodeFields(given, as: elements.map { (nil, $0) }, value: value, id: id, to: &encoder, depth: depth)
            } else if elements.count == 1 {
                try encode(value, as: elements[0], to: &encoder, depth: depth + 1)
            } else {
                throw mismatch(value, id, "a tuple of \(elements.count) elements needs a composite value")
            }
        case .variant(let variants):
            guard case .variant(let name, let index, let given) = value else { throw mismatch(value, id, "an enum needs a variant value") }
            // A name and index that both match win (a hostile registry may repeat names); else the name; else the index.
            let named = variants.first { $0.name == name && $0.index == index } ?? variants.first { !name.isEmpty && $0.name == name }
            guard let variant = named ?? (name.isEmpty ? variants.first { $0.index == index } : nil) else {
                throw mismatch(value, id, "no variant \(name.isEmpty ? "with index \(index)" : name)")
            }
            encoder.encodeInteger(variant.index)
            try encodeFields(given, as: variant.fields.map { ($0.name, $0.type) }, value: value, id: id, to: &encoder, depth: depth)
        case .sequence(let element):
            if isByte(element), case .bytes(let bytes) = value {
                encoder.encodeBytes(bytes)
            } else if case .sequence(let items) = value {
                encoder.encodeCompact(UInt64(items.count))
                for item in items { try encode(item, as: element, to: &encoder, depth: depth + 1) }
            } else {
                throw mismatch(value, id, "a Vec needs a sequence value (or bytes for Vec<u8>)")
            }
        case .array(let length, let element):
            if isByte(element), case .bytes(let bytes) = value {
                guard bytes.count == length else { throw mismatch(value, id, "\(bytes.count) bytes, not \(length)") }
                encoder.encodeRaw(bytes)
            } else if case .sequence(let items) = value {
                guard items.count == length else { throw mismatch(value, id, "\(items.count) elements, not \(length)") }
                for item in items { try encode(item, as: element, to: &encoder, depth: depth + 1) }
            } else {
                throw mismatch(value, id, "an array needs a sequence value (or bytes for [u8; N])")
            }
        case .primitive(let primitive):
            try encodePrimitive(value, primitive, id: id, to: &encoder)
        case .compact(let inner):
            let primitive = try compactPrimitive(inner, depth: depth + 1)
            guard let integer = value.unsignedInteger else { throw mismatch(value, id, "a compact needs an unsigned value") }
            try checkFits(integer, primitive, id: id)
            encoder.encodeCompact(integer)
        case .bitSequence(let store, _):
            guard case .bitSequence(let bitCount, let storage) = value else { throw mismatch(value, id, "needs a bit sequence value") }
            let storeBits = UInt64(try bitStoreWidth(store) * 8)
            let words = bitCount / storeBits + (bitCount % storeBits == 0 ? 0 : 1)
            guard UInt64(storage.count) == words * (storeBits / 8) else {
                throw mismatch(value, id, "\(bitCount) bits need \(words * (storeBits / 8)) storage bytes, not \(storage.count)")
            }
            encoder.encodeCompact(bitCount)
            encoder.encodeRaw(storage)
        }
    }

    private func encodeFields(
        _ given: [SCALEField],
        as declared: [(name: String?, type: MetadataTypeID)],
        value: SCALEValue,
        id: MetadataTypeID,
        to encoder: inout SCALEEncoder,
        depth: Int
    ) throws {
        guard given.count == declared.count else {
            throw mismatch(value, id, "\(given.count) fields given, \(declared.count) declared")
        }
        // By name only when every field on both sides is named, the names differ from the declared order, and the
        // declared names are unique; by position otherwise (a decoded value always matches by position).
        let declaredNames = declared.compactMap(\.name)
        let byName =
            given.allSatisfy { $0.name != nil } && declaredNames.count == declared.count
            && given.map(\.name) != declared.map(\.name) && Set(declaredNames).count == declaredNames.count
        for (position, field) in declared.enumerated() {
            let fieldValue: SCALEValue
            if byName {
                guard let match = given.first(where: { $0.name == field.name }) else {
                    throw mismatch(value, id, "no value for field \(field.name ?? "?")")
                }
                fieldValue = match.value
            } else {
                fieldValue = given[position].value
            }
            try encode(fieldValue, as: field.type, to: &encoder, depth: depth + 1)
        }
    }

    private func checkFits(_ integer: UInt128, _ primitive: PrimitiveType, id: MetadataTypeID) throws {
        let bits = (primitive.byteCount ?? 16) * 8
        guard bits >= 128 || integer < (1 as UInt128) << bits else {
            throw ChainKitError(.outOfRange, "\(integer) does not fit \(displayName(of: id))")
        }
    }

    private func encodePrimitive(_ value: SCALEValue, _ primitive: PrimitiveType, id: MetadataTypeID, to encoder: inout SCALEEncoder) throws {
        switch (primitive, value) {
        case (.bool, .bool(let flag)): encoder.encodeBool(flag)
        case (.char, .char(let scalar)): encoder.encodeInteger(scalar.value)
        case (.str, .string(let text)): encoder.encode(text)
        case (.u256, .wideInteger(let bytes, false)), (.i256, .wideInteger(let bytes, true)):
            guard bytes.count == 32 else { throw mismatch(value, id, "a 256-bit integer is 32 bytes") }
            encoder.encodeRaw(bytes)
        case (.u256, .unsigned(let integer)):
            encoder.encodeInteger(integer)
            encoder.encodeInteger(UInt128.zero)
        case (.i256, .signed(let integer)):
            encoder.encodeInteger(integer)
            encoder.encodeInteger(integer < 0 ? Int128(-1) : 0)
        case (_, .unsigned(let integer)) where primitive.isUnsigned:
            try checkFits(integer, primitive, id: id)
            let raw = integer
            for index in 0..<(primitive.byteCount ?? 0) {
                encoder.encodeInteger(UInt8(truncatingIfNeeded: raw >> (index * 8)))
            }
        case (_, .signed(let integer)) where primitive.isSigned:
            let bits = (primitive.byteCount ?? 16) * 8
            guard bits >= 128 || (integer >= -((1 as Int128) << (bits - 1)) && integer < (1 as Int128) << (bits - 1)) else {
                throw ChainKitError(.outOfRange, "\(integer) does not fit \(primitive)")
            }
            for index in 0..<(primitive.byteCount ?? 0) {
                encoder.encodeInteger(UInt8(truncatingIfNeeded: integer >> (index * 8)))
            }
        default:
            throw mismatch(value, id)
        }
    }
}
