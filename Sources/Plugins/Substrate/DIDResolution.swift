import Foundation
import HTTPTypes
import HubKernel

/// A DID resolved as W3C DID Core (v1.0) and DID Resolution describe it: the document as
/// JSON-LD (`application/did+ld+json`) and the resolution result around it with the document's
/// metadata (created, updated, the version, the anchored block).
///
/// Written with Foundation's encoder, not the API's: DID Core's members are `camelCase`
/// (`verificationMethod`, `publicKeyMultibase`) and the API's would make them `snake_case`. Keys
/// are sorted so a reply recorded with an `Idempotency-Key` replays byte for byte.
struct DIDResolution: Sendable {
    static let documentContentType = "application/did+ld+json"
    static let resultContentType = "application/ld+json;profile=\"https://w3id.org/did-resolution\""

    var document: PeaqDIDDocument
    /// The attribute holding the document.
    var attributeName: String
    /// Unix milliseconds, the attribute's `created`.
    var created: UInt64
    var updated: String
    var proof: DIDProofRepresentation
    /// The node's block holding the document's last change, once that block is finalized
    /// (``DIDAnchorer``); nil while offline or not anchored yet.
    var anchoredBlock: UInt64?

    init(document: PeaqDIDDocument, attribute: DIDAttribute, proof: DIDProofRepresentation, anchoredBlock: UInt64? = nil) {
        self.anchoredBlock = anchoredBlock
        self.document = document
        attributeName = String(decoding: attribute.name, as: UTF8.self)
        created = attribute.created
        updated = attribute.updatedAt.description
        self.proof = proof
    }

    init(document: PeaqDIDDocument, written: DIDAttributeRepresentation) {
        self.document = document
        attributeName = written.name
        created = written.created
        updated = written.updatedAt
        proof = written.proof
    }

    /// The JSON-LD document alone, as `Accept: application/did+ld+json` asks.
    var documentBytes: [UInt8] { Self.encode(W3CDocument(document)) }

    /// The resolution result: `didDocument`, `didDocumentMetadata`, `didResolutionMetadata`.
    var resultBytes: [UInt8] {
        Self.encode(
            Result(
                didDocument: W3CDocument(document),
                didDocumentMetadata: Metadata(
                    created: LedgerTimestamp(nanoseconds: created * 1_000_000).description,
                    updated: updated,
                    versionId: proof.hash,
                    anchoredBlock: anchoredBlock,
                    peaqAttribute: attributeName,
                    proof: proof
                ),
                didResolutionMetadata: ["contentType": Self.documentContentType]
            )
        )
    }

    /// A write's reply: the resolution result, as `application/json` (what the client sent).
    static func reply(_ result: DIDRegistry.Written, document: PeaqDIDDocument, status: HTTPResponse.Status, location: String?) throws -> HTTPReply {
        guard case .written(let shown, _) = result else { throw DIDProofError(message: "a document write removed its attribute") }
        let resolution = DIDResolution(document: document, written: shown)
        return HTTPReply(status: status.code, contentType: "application/json", location: location, body: resolution.resultBytes)
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, arrays and optionals: encoding cannot fail.
        return Array(try! encoder.encode(value))
    }

    struct Result: Encodable {
        var context = "https://w3id.org/did-resolution/v1"
        var didDocument: W3CDocument
        var didDocumentMetadata: Metadata
        var didResolutionMetadata: [String: String]

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case didDocument, didDocumentMetadata, didResolutionMetadata
        }
    }

    struct Metadata: Encodable {
        var created: String
        var updated: String
        /// The hash of the last change's signed extrinsic.
        var versionId: String
        /// The block the document is in on a peaq node: null, the registry is offline (no
        /// anchoring yet).
        var anchoredBlock: UInt64?
        /// The attribute holding the peaq document.
        var peaqAttribute: String
        var proof: DIDProofRepresentation

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(created, forKey: .created)
            try container.encode(updated, forKey: .updated)
            try container.encode(versionId, forKey: .versionId)
            try container.encode(anchoredBlock, forKey: .anchoredBlock)  // null until anchored, not left out
            try container.encode(peaqAttribute, forKey: .peaqAttribute)
            try container.encode(proof, forKey: .proof)
        }

        enum CodingKeys: String, CodingKey { case created, updated, versionId, anchoredBlock, peaqAttribute, proof }
    }

    /// The peaq document in DID Core's JSON-LD: the same members peaq's SDK shows (`_proto_to_v2`),
    /// `@context` first: DID Core's, plus the two terms it does not define.
    struct W3CDocument: Encodable {
        struct Method: Encodable {
            var id: String
            var type: String
            var controller: String
            var publicKeyMultibase: String
        }

        struct Service: Encodable {
            var id: String
            var type: String
            var serviceEndpoint: String?
            /// peaq's own member (a service may carry data instead of an endpoint).
            var data: String?
        }

        var id: String
        var controller: String
        var verificationMethod: [Method]
        var authentication: [String]
        var service: [Service]
        /// peaq's issuer signature `{type, issuer, hash}`, when the document has one.
        var signature: PeaqDIDDocument.Signature?

        init(_ document: PeaqDIDDocument) {
            id = document.id
            controller = document.controller
            verificationMethod = document.verificationMethods.map {
                Method(id: $0.id, type: $0.type, controller: $0.controller, publicKeyMultibase: $0.publicKeyMultibase)
            }
            authentication = document.authentications
            service = document.services.map { Service(id: $0.id, type: $0.type, serviceEndpoint: $0.serviceEndpoint, data: $0.data) }
            signature = document.signature
        }

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case id, controller, verificationMethod, authentication, service, signature
        }

        /// Terms DID Core's context leaves out, from the W3C security vocabulary.
        static let extraTerms: [String: [String: String]] = [
            "Sr25519VerificationKey2020": ["@id": "https://w3id.org/security#Sr25519VerificationKey2020"],
            "publicKeyMultibase": ["@id": "https://w3id.org/security#publicKeyMultibase", "@type": "https://w3id.org/security#multibase"],
        ]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var context = container.nestedUnkeyedContainer(forKey: .context)
            try context.encode("https://www.w3.org/ns/did/v1")
            try context.encode(Self.extraTerms)
            try container.encode(id, forKey: .id)
            if !controller.isEmpty { try container.encode(controller, forKey: .controller) }
            try container.encode(verificationMethod, forKey: .verificationMethod)
            try container.encode(authentication, forKey: .authentication)
            try container.encode(service, forKey: .service)
            try container.encodeIfPresent(signature, forKey: .signature)
        }
    }
}
