import ChainKit
import Foundation
import HubKernel
import Testing

@testable import HubSubstrate

/// The DID document's protobuf against peaq's own Python SDK (peaq-sdk 1.0.1, protobuf 5.28.2):
/// `Tests/Fixtures/vectors/peaq_did_document.json`, made by `tools/vectors/gen_peaq_did.py`.
@Suite("peaq DID document protobuf")
struct PeaqDIDDocumentTests {
    /// Read on each use: a stored static of `[String: Any]` is not `Sendable`.
    static var vectors: [[String: Any]] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/peaq_did_document.json")
        let root = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [String: Any]
        return root?["vectors"] as? [[String: Any]] ?? []
    }

    static func vectors(_ prefix: String) -> [[String: Any]] { vectors.filter { ($0["name"] as? String ?? "").hasPrefix(prefix) } }

    static func bytes(_ vector: [String: Any]) throws -> [UInt8] {
        let text = try #require(vector["protobuf"] as? String)
        return try #require(HexText.decode(text))
    }

    /// The vector's `document` (the .proto's snake_case fields; optional ones only when present).
    static func document(_ json: [String: Any]) throws -> PeaqDIDDocument {
        var document = PeaqDIDDocument()
        document.id = json["id"] as? String ?? ""
        document.controller = json["controller"] as? String ?? ""
        for method in json["verification_methods"] as? [[String: String]] ?? [] {
            document.verificationMethods.append(
                .init(
                    id: method["id"] ?? "",
                    type: method["type"] ?? "",
                    controller: method["controller"] ?? "",
                    publicKeyMultibase: method["public_key_multibase"] ?? ""
                )
            )
        }
        if let signature = json["signature"] as? [String: String] {
            document.signature = .init(type: signature["type"] ?? "", issuer: signature["issuer"] ?? "", hash: signature["hash"] ?? "")
        }
        for service in json["services"] as? [[String: String]] ?? [] {
            document.services.append(
                .init(id: service["id"] ?? "", type: service["type"] ?? "", serviceEndpoint: service["service_endpoint"], data: service["data"])
            )
        }
        document.authentications = json["authentications"] as? [String] ?? []
        return document
    }

    @Test("writes the bytes peaq's SDK writes, and the attribute value it stores")
    func encodesAsTheSDK() throws {
        let cases = Self.vectors("encode: ")
        #expect(cases.count >= 6)
        for vector in cases {
            let document = try Self.document(try #require(vector["document"] as? [String: Any]))
            let expected = try Self.bytes(vector)
            #expect(document.protobuf == expected, "\(vector["name"] ?? "")")
            #expect(String(decoding: document.attributeValue, as: UTF8.self) == vector["attribute_value_utf8"] as? String)
            #expect(try PeaqDIDDocument(protobuf: expected) == document, "\(vector["name"] ?? "")")
        }
    }

    @Test("reads what peaq's SDK reads: any order, unknown fields and groups, merged messages")
    func decodesAsTheSDK() throws {
        let cases = Self.vectors("decode: ")
        #expect(cases.count >= 7)
        for vector in cases {
            let expected = try Self.document(try #require(vector["document"] as? [String: Any]))
            #expect(try PeaqDIDDocument(protobuf: Self.bytes(vector)) == expected, "\(vector["name"] ?? "")")
        }
    }

    @Test("refuses what peaq's SDK refuses")
    func rejectsAsTheSDK() throws {
        let cases = Self.vectors("reject: ")
        #expect(cases.count >= 10)
        for vector in cases {
            #expect(throws: ProtobufError.self, "\(vector["name"] ?? "")") { try PeaqDIDDocument(protobuf: Self.bytes(vector)) }
        }
    }

    @Test("the hub's document: the SDK's ids, Sr25519VerificationKey2020, the multibase key")
    func hubDocument() throws {
        // Alice's well-known key; the vector's multibase comes from PyPI's base58.
        let key = try #require(HexText.decode("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d"))
        let did = "did:peaq:" + (try SS58.encode(key, prefix: 42))
        let built = PeaqDIDDocument(did: did, sr25519Key: key)
        let vector = try #require(Self.vectors("encode: the hub's document").first)
        let expected = HexText.encode(try Self.bytes(vector))
        #expect(HexText.encode(built.protobuf) == expected)
        #expect(built.verificationMethods.first?.id == did + "#keys-1")
        #expect(built.authentications == [did + "#keys-1"])
        #expect(built.verificationMethods.first?.publicKeyMultibase.hasPrefix("z") == true)
    }

    @Test("an attribute value is a document only as lowercase hex text of one with an id")
    func attributeValues() throws {
        let document = PeaqDIDDocument(did: "did:peaq:x", sr25519Key: [UInt8](repeating: 7, count: 32))
        #expect(PeaqDIDDocument(attributeValue: document.attributeValue) == document)
        #expect(PeaqDIDDocument(attributeValue: document.protobuf) == nil)  // raw bytes: not the SDK's value
        #expect(PeaqDIDDocument(attributeValue: Array("0x".utf8) + document.attributeValue) == nil)
        #expect(PeaqDIDDocument(attributeValue: Array("sensor".utf8)) == nil)
        #expect(PeaqDIDDocument(attributeValue: Array("0a05".utf8)) == nil)  // truncated
        #expect(PeaqDIDDocument(attributeValue: []) == nil)  // empty: no id
    }

    @Test("nested unknown groups are bounded", arguments: [63, 64, 65])
    func groupDepth(depth: Int) throws {
        let bytes = [UInt8](repeating: 0x4B, count: depth) + [UInt8](repeating: 0x4C, count: depth)
        if depth <= ProtobufReader.maxGroupDepth {
            #expect(try PeaqDIDDocument(protobuf: bytes) == PeaqDIDDocument())
        } else {
            #expect(throws: ProtobufError.self) { try PeaqDIDDocument(protobuf: bytes) }
        }
    }

    @Test(
        "services the hub will not write",
        arguments: [
            ("", "t", "e", nil, "service.id"),
            ("#a", "", "e", nil, "service.type"),
            ("#a", "t", nil, nil, "service"),
            (String(repeating: "i", count: 257), "t", "e", nil, "service.id"),
            ("#a", "t", String(repeating: "e", count: 2049), nil, "service.service_endpoint"),
            ("#a", "t", nil, String(repeating: "d", count: 2049), "service.data"),
        ] as [(String, String, String?, String?, String)]
    )
    func invalidServices(id: String, type: String, endpoint: String?, data: String?, field: String) throws {
        let service = PeaqDIDDocument.Service(id: id, type: type, serviceEndpoint: endpoint, data: data)
        let error = #expect(throws: SubstrateError.self) { try service.validate(field: "service") }
        #expect(error?.field == field)
        #expect(error?.errorCode == "invalid_supplied_value")
    }
}
