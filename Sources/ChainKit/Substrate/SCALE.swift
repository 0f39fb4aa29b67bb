/// A value with a SCALE encoding (parity-scale-codec's `Encode`).
///
/// SCALE carries no type information: the bytes mean something only to a reader who knows the type, so a
/// type's encoding is the concatenation of its fields' encodings in declaration order. Enums write their
/// variant index as one byte, then that variant's fields.
public protocol SCALEEncodable {
    /// Appends this value's encoding to `encoder`.
    func encode(to encoder: inout SCALEEncoder)
}

/// A value that can be read back from SCALE bytes (parity-scale-codec's `Decode`).
public protocol SCALEDecodable {
    /// Reads one value at the decoder's position and moves past it.
    /// - Throws: ``ChainKitError`` (`invalid_scale`) for bytes that are truncated or do not encode this type.
    init(from decoder: inout SCALEDecoder) throws
}

/// A type that SCALE-encodes and decodes.
public typealias SCALECodable = SCALEDecodable & SCALEEncodable

extension SCALEEncodable {
    /// This value's SCALE bytes.
    public var scaleEncoded: [UInt8] {
        var encoder = SCALEEncoder()
        encoder.encode(self)
        return encoder.bytes
    }
}

extension SCALEDecodable {
    /// Decodes exactly one value from `bytes`.
    /// - Throws: `invalid_scale` when the bytes do not hold one value of this type, or hold more than it.
    public init(scaleEncoded bytes: some Collection<UInt8>) throws {
        var decoder = SCALEDecoder(bytes)
        self = try decoder.decode(Self.self)
        try decoder.finish()
    }
}
