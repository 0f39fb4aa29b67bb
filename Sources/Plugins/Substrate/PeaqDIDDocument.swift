import ChainKit
import HubKernel

/// A DID document as peaq's SDKs write it (their protobuf `document.Document`, wire format in
/// `PeaqDIDDocument+Protobuf.swift`), kept as the value of one of the DID's attributes.
///
/// What the SDK does, and the hub does the same way (peaq-sdk 1.0.1 `did.py`, `utils/crypto.py`):
/// - `id` is `did:peaq:<address>`, `controller` the controller's DID (here the DID itself: its
///   wallet's holder controls it);
/// - each verification method has the id `<did>#keys-<n>` (n from 1), the type
///   `Sr25519VerificationKey2020` and the key as `publicKeyMultibase`: `z` + base58btc of the
///   multicodec `sr25519-pub` (0xef, as the varint `ef 01`) and the 32-byte key; its id is also
///   listed in `authentications`;
/// - services are `{id, type, service_endpoint?, data?}`, at least one of the last two;
/// - `signature` `{type, issuer, hash}` is an issuer's, given by the caller, not computed;
/// - the attribute's value is the protobuf bytes as lowercase hex text, no `0x` (the SDK passes
///   that hex string to `add_attribute`, so the pallet stores its ASCII bytes, and its `read`
///   decodes the value as UTF-8 and then as hex).
struct PeaqDIDDocument: Sendable, Hashable {
    static let sr25519KeyType = "Sr25519VerificationKey2020"
    /// The multicodec `sr25519-pub` (0xef) as an unsigned varint.
    static let sr25519Multicodec: [UInt8] = [0xEF, 0x01]

    struct VerificationMethod: Sendable, Hashable, Codable {
        var id: String
        var type: String
        var controller: String
        var publicKeyMultibase: String
    }

    struct Signature: Sendable, Hashable, Codable {
        var type: String
        var issuer: String
        var hash: String
    }

    struct Service: Sendable, Hashable, Codable {
        var id: String
        var type: String
        var serviceEndpoint: String?
        var data: String?

        init(id: String, type: String, serviceEndpoint: String? = nil, data: String? = nil) {
            self.id = id
            self.type = type
            self.serviceEndpoint = serviceEndpoint
            self.data = data
        }
    }

    var id = ""
    var controller = ""
    var verificationMethods: [VerificationMethod] = []
    var signature: Signature?
    var services: [Service] = []
    var authentications: [String] = []

    init() {}

    /// The document the hub writes for `did`, an sr25519 account's DID, controlled by itself.
    init(did: String, sr25519Key publicKey: [UInt8], services: [Service] = [], signature: Signature? = nil) {
        id = did
        controller = did
        let method = VerificationMethod(
            id: did + "#keys-1",
            type: Self.sr25519KeyType,
            controller: did,
            publicKeyMultibase: Self.multibase(sr25519Key: publicKey)
        )
        verificationMethods = [method]
        authentications = [method.id]
        self.services = services
        self.signature = signature
    }

    /// `z` (base58btc) + the multicodec-prefixed key, as the SDK's `generate_sr25519_public_key_multibase`.
    static func multibase(sr25519Key publicKey: [UInt8]) -> String { "z" + Base58.encode(sr25519Multicodec + publicKey) }

    /// The attribute value the SDK writes: the protobuf bytes as lowercase hex text.
    var attributeValue: [UInt8] { Array(HexText.encode(protobuf).utf8) }

    /// A document from an attribute's value, or nil when the value is not one (not hex text of a
    /// `document.Document` with an id).
    init?(attributeValue value: [UInt8]) {
        guard let text = String(validating: value, as: UTF8.self), !text.hasPrefix("0x"), let bytes = HexText.decode(text),
            let document = try? PeaqDIDDocument(protobuf: bytes), !document.id.isEmpty
        else { return nil }
        self = document
    }
}

extension PeaqDIDDocument.Service {
    /// Sizes a service's fields may have: a document is one attribute value, read back whole.
    static let maxIDBytes = 256
    static let maxTypeBytes = 128
    static let maxTextBytes = 2048

    /// Refuses what peaq's SDK would not write (no id or type, neither endpoint nor data), and
    /// over-long fields, naming the field (`field` is where the service is in the request).
    func validate(field: String) throws {
        func check(_ text: String, _ name: String, max: Int) throws {
            guard text.utf8.count <= max else {
                throw SubstrateError.invalidSuppliedValue("\(field).\(name)", "A service's \(name) is at most \(max) bytes.")
            }
        }
        guard !id.isEmpty else { throw SubstrateError.invalidSuppliedValue("\(field).id", "A service has an id.") }
        guard !type.isEmpty else { throw SubstrateError.invalidSuppliedValue("\(field).type", "A service has a type.") }
        guard serviceEndpoint != nil || data != nil else {
            throw SubstrateError.invalidSuppliedValue(field, "A service has a service_endpoint, data or both.")
        }
        try check(id, "id", max: Self.maxIDBytes)
        try check(type, "type", max: Self.maxTypeBytes)
        try check(serviceEndpoint ?? "", "service_endpoint", max: Self.maxTextBytes)
        try check(data ?? "", "data", max: Self.maxTextBytes)
    }
}

extension PeaqDIDDocument {
    /// At most this many services in a document the hub writes.
    static let maxServices = 32

    /// Refuses a service list the hub would not write: invalid services, two with one id, too many.
    static func validate(services: [Service], field: String = "services") throws {
        guard services.count <= maxServices else {
            throw SubstrateError.invalidSuppliedValue(field, "A document has at most \(maxServices) services.")
        }
        var seen: Set<String> = []
        for (index, service) in services.enumerated() {
            try service.validate(field: "\(field)[\(index)]")
            guard seen.insert(service.id).inserted else {
                throw SubstrateError.invalidSuppliedValue("\(field)[\(index)].id", "Two services have the id \(service.id).")
            }
        }
    }

    static func validate(signature: Signature) throws {
        for (name, text) in [("type", signature.type), ("issuer", signature.issuer), ("hash", signature.hash)] {
            guard !text.isEmpty, text.utf8.count <= PeaqDIDDocument.Service.maxTextBytes else {
                throw SubstrateError.invalidSuppliedValue("signature.\(name)", "A signature has a \(name) of 1 to 2048 bytes.")
            }
        }
    }
}
