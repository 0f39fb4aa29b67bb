/// The protobuf wire format of ``PeaqDIDDocument``, written by hand for exactly this schema
/// (peaq's `did_document_format.proto`, package `document`, proto3, as peaq-sdk 1.0.1 generates it):
///
/// ```
/// Document           { string id = 1; string controller = 2; repeated VerificationMethod verification_methods = 3;
///                      Signature signature = 4; repeated Services services = 5; repeated string authentications = 6; }
/// VerificationMethod { string id = 1; string type = 2; string controller = 3; string public_key_multibase = 4; }
/// Signature          { string type = 1; string issuer = 2; string hash = 3; }
/// Services           { string id = 1; string type = 2; optional string service_endpoint = 3; optional string data = 4; }
/// ```
///
/// Writing follows protobuf's canonical order, as every official runtime does: fields by number,
/// a proto3 string left out when it is empty, a `optional` one and the `signature` message written
/// whenever they are set (empty included), repeated fields one record per element. So the bytes
/// equal peaq's SDK's `SerializeToString()` for the same document (golden vectors in the tests).
///
/// Reading accepts what peaq's SDK's parser (protobuf 5.28.2) accepts, checked by the golden
/// vectors: fields in any order, unknown fields skipped (every wire type, groups included), a
/// known field with another wire type taken as an unknown one, the last value of a singular field
/// kept and a message field seen twice merged. It refuses with ``ProtobufError`` what that parser
/// refuses: a truncated or over-long varint, a length past the end, field number 0, an unended
/// group or an end with no start, wire types 6 and 7, text that is not UTF-8 (proto3 strings must
/// be).
extension PeaqDIDDocument {
    /// The document's protobuf bytes.
    var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writer.string(1, id)
        writer.string(2, controller)
        for method in verificationMethods { writer.message(3, method.protobuf) }
        if let signature { writer.message(4, signature.protobuf) }
        for service in services { writer.message(5, service.protobuf) }
        for authentication in authentications { writer.string(6, authentication, always: true) }
        return writer.bytes
    }

    /// Reads protobuf bytes.
    /// - Throws: ``ProtobufError`` for bytes that are not a `document.Document`.
    init(protobuf bytes: [UInt8]) throws(ProtobufError) {
        self.init()
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField() {
            // Every field of this schema is length-delimited; another wire type is an unknown field.
            guard field.wireType == .lengthDelimited else {
                try reader.skip(field)
                continue
            }
            switch field.number {
            case 1: id = try reader.string(field)
            case 2: controller = try reader.string(field)
            case 3: verificationMethods.append(try VerificationMethod(protobuf: reader.bytes(field)))
            case 4: signature = try Signature(protobuf: reader.bytes(field), merging: signature)
            case 5: services.append(try Service(protobuf: reader.bytes(field)))
            case 6: authentications.append(try reader.string(field))
            default: try reader.skip(field)
            }
        }
    }
}

extension PeaqDIDDocument.VerificationMethod {
    var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writer.string(1, id)
        writer.string(2, type)
        writer.string(3, controller)
        writer.string(4, publicKeyMultibase)
        return writer.bytes
    }

    init(protobuf bytes: [UInt8]) throws(ProtobufError) {
        self.init(id: "", type: "", controller: "", publicKeyMultibase: "")
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField() {
            guard field.wireType == .lengthDelimited else {
                try reader.skip(field)
                continue
            }
            switch field.number {
            case 1: id = try reader.string(field)
            case 2: type = try reader.string(field)
            case 3: controller = try reader.string(field)
            case 4: publicKeyMultibase = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension PeaqDIDDocument.Signature {
    var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writer.string(1, type)
        writer.string(2, issuer)
        writer.string(3, hash)
        return writer.bytes
    }

    /// A message field seen twice is merged, as protobuf parsers do: later fields win.
    init(protobuf bytes: [UInt8], merging earlier: Self?) throws(ProtobufError) {
        self = earlier ?? Self(type: "", issuer: "", hash: "")
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField() {
            guard field.wireType == .lengthDelimited else {
                try reader.skip(field)
                continue
            }
            switch field.number {
            case 1: type = try reader.string(field)
            case 2: issuer = try reader.string(field)
            case 3: hash = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension PeaqDIDDocument.Service {
    var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writer.string(1, id)
        writer.string(2, type)
        // proto3 `optional`: present means written, even when empty.
        if let serviceEndpoint { writer.string(3, serviceEndpoint, always: true) }
        if let data { writer.string(4, data, always: true) }
        return writer.bytes
    }

    init(protobuf bytes: [UInt8]) throws(ProtobufError) {
        self.init(id: "", type: "")
        var reader = ProtobufReader(bytes)
        while let field = try reader.nextField() {
            guard field.wireType == .lengthDelimited else {
                try reader.skip(field)
                continue
            }
            switch field.number {
            case 1: id = try reader.string(field)
            case 2: type = try reader.string(field)
            case 3: serviceEndpoint = try reader.string(field)
            case 4: data = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// Why bytes are not the protobuf message expected.
struct ProtobufError: Error, Equatable, CustomStringConvertible {
    var message: String
    /// Where in the (outermost or nested) message's bytes it was found.
    var offset: Int

    var description: String { "\(message) at byte \(offset)" }
}

/// Protobuf records out: tag (field number << 3 | wire type) as a varint, then the value.
/// Only what the DID document needs: length-delimited strings and messages (wire type 2).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func lengthDelimited(_ number: Int, _ payload: some Collection<UInt8>) {
        varint(UInt64(number) << 3 | UInt64(ProtobufReader.WireType.lengthDelimited.rawValue))
        varint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    /// A string field; proto3 leaves an empty one out unless it has explicit presence (`always`).
    mutating func string(_ number: Int, _ text: String, always: Bool = false) {
        if text.isEmpty && !always { return }
        lengthDelimited(number, text.utf8)
    }

    /// An embedded message, written even when empty (its presence is the information).
    mutating func message(_ number: Int, _ payload: [UInt8]) {
        lengthDelimited(number, payload)
    }
}

/// Protobuf records in, one at a time.
struct ProtobufReader {
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case startGroup = 3
        case endGroup = 4
        case fixed32 = 5
    }

    struct Field {
        var number: Int
        var wireType: WireType
        /// Where its tag starts, for errors.
        var offset: Int
    }

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next field's tag, or nil at the end of the message.
    mutating func nextField() throws(ProtobufError) -> Field? {
        guard position < bytes.count else { return nil }
        let offset = position
        let tag = try varint()
        guard tag <= UInt64(UInt32.max), let wireType = WireType(rawValue: UInt8(tag & 7)) else {
            throw ProtobufError(message: "invalid tag", offset: offset)
        }
        let number = Int(tag >> 3)
        guard number > 0 else { throw ProtobufError(message: "field number 0", offset: offset) }
        guard wireType != .endGroup else { throw ProtobufError(message: "a group ends that did not start", offset: offset) }
        return Field(number: number, wireType: wireType, offset: offset)
    }

    /// A base-128 varint: at most 10 bytes, the tenth holding only the 64th bit.
    mutating func varint() throws(ProtobufError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard position < bytes.count else { throw ProtobufError(message: "truncated varint", offset: start) }
            let byte = bytes[position]
            position += 1
            if shift == 63, byte > 1 { throw ProtobufError(message: "varint over 64 bits", offset: start) }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        throw ProtobufError(message: "varint over 10 bytes", offset: start)
    }

    /// A length-delimited field's bytes.
    mutating func bytes(_ field: Field) throws(ProtobufError) -> [UInt8] {
        guard field.wireType == .lengthDelimited else {
            throw ProtobufError(message: "field \(field.number) is not length-delimited", offset: field.offset)
        }
        let start = position
        let length = try varint()
        guard length <= UInt64(bytes.count - position) else {
            throw ProtobufError(message: "field \(field.number)'s length runs past the end", offset: start)
        }
        defer { position += Int(length) }
        return Array(bytes[position..<position + Int(length)])
    }

    /// A string field: UTF-8, as proto3 requires of `string`.
    mutating func string(_ field: Field) throws(ProtobufError) -> String {
        let raw = try bytes(field)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw ProtobufError(message: "field \(field.number) is not UTF-8", offset: field.offset)
        }
        return text
    }

    /// How deep unknown groups may nest, as protobuf parsers bound recursion (100 there): the
    /// bytes come from users, and each level is one byte.
    static let maxGroupDepth = 64

    /// Steps over a field this schema does not know.
    mutating func skip(_ field: Field, depth: Int = 0) throws(ProtobufError) {
        let width: Int
        switch field.wireType {
        case .varint:
            _ = try varint()
            return
        case .lengthDelimited:
            _ = try bytes(field)
            return
        case .fixed64: width = 8
        case .fixed32: width = 4
        case .startGroup:
            // A group's fields up to the end tag of the same number (groups nest).
            guard depth < Self.maxGroupDepth else { throw ProtobufError(message: "groups nested too deep", offset: field.offset) }
            while position < bytes.count {
                let offset = position
                let tag = try varint()
                guard tag <= UInt64(UInt32.max), let wireType = WireType(rawValue: UInt8(tag & 7)), tag >> 3 > 0 else {
                    throw ProtobufError(message: "invalid tag", offset: offset)
                }
                if wireType == .endGroup {
                    guard Int(tag >> 3) == field.number else { throw ProtobufError(message: "a group ends with another number", offset: offset) }
                    return
                }
                try skip(Field(number: Int(tag >> 3), wireType: wireType, offset: offset), depth: depth + 1)
            }
            throw ProtobufError(message: "group \(field.number) never ends", offset: field.offset)
        case .endGroup: throw ProtobufError(message: "a group ends that did not start", offset: field.offset)
        }
        guard bytes.count - position >= width else { throw ProtobufError(message: "truncated field \(field.number)", offset: field.offset) }
        position += width
    }
}
