import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubSubstrate

extension SubstrateRailTests {
    /// DID documents as peaq's SDK writes them (the protobuf's hex as an attribute value) and the
    /// W3C DID Core view of `GET /dids/{did}`.
    @Suite("Substrate rail: DID documents", .timeLimit(.minutes(4)))
    struct SubstrateDIDDocumentTests {
        typealias DIDs = SubstrateDIDTests

        /// The body of a JSON response, keys as sent.
        static func json(_ response: TestResponse) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any], "\(response.text)")
        }

        /// The attribute holding the document, decoded as peaq's SDK would: UTF-8 hex text of the protobuf.
        static func storedDocument(_ client: any TestClientProtocol, did: String, name: String, token: String) async throws -> PeaqDIDDocument {
            let attribute = try await client.substrate(
                .get,
                "/dids/\(did)/attributes/\(name.replacingOccurrences(of: ":", with: "%3A"))",
                token: token
            )
            #expect(attribute.status == .ok, "\(attribute.text)")
            let text = try #require(attribute.object["value"] as? String)
            return try PeaqDIDDocument(protobuf: try #require(HexText.decode(text)))
        }

        @Test("create the document, add and remove services, read it as W3C DID Core", arguments: TestBackend.enabled)
        func flow(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let (address, key) = try await DIDs.custodialWallet(client, token: token)
                let did = "did:peaq:\(address)"
                let endpoint = ["id": "#api", "type": "LinkedDomains", "service_endpoint": "https://example.com/api"]

                let created = try await client.substrate(
                    .post,
                    "/dids",
                    token: token,
                    ["address": address, "services": [endpoint]],
                    headers: [.idempotencyKey: "doc-1"]
                )
                #expect(created.status == .created, "\(created.text)")
                #expect(created.headers[.location] == "/v1/rails/substrate/dids/\(did)")
                let again = try await client.substrate(
                    .post,
                    "/dids",
                    token: token,
                    ["address": address, "services": [endpoint]],
                    headers: [.idempotencyKey: "doc-1"]
                )
                #expect(again.text == created.text)
                #expect(again.headers[.idempotencyReplayed] != nil)
                #expect(try await count(DIDs.proofCount, in: hub) == 1)
                let result = try Self.json(created)
                let document = try #require(result["didDocument"] as? [String: Any])
                #expect(document["id"] as? String == did)
                let metadata = try #require(result["didDocumentMetadata"] as? [String: Any])
                #expect(metadata["anchoredBlock"] is NSNull)
                let proof = try #require(metadata["proof"] as? [String: Any])
                #expect(proof["call"] as? String == "PeaqDid.add_attribute")
                #expect(metadata["versionId"] as? String == proof["hash"] as? String)

                // The attribute is the SDK's: named after the DID, its value the protobuf's hex,
                // signed as add_attribute with exactly those bytes.
                let stored = try await Self.storedDocument(client, did: did, name: did, token: token)
                let multibase = "z" + Base58.encode([0xEF, 0x01] + key.publicKey)
                var expected = PeaqDIDDocument(did: did, sr25519Key: key.publicKey)
                expected.services = [.init(id: "#api", type: "LinkedDomains", serviceEndpoint: "https://example.com/api")]
                #expect(stored == expected)
                #expect(stored.verificationMethods.first?.publicKeyMultibase == multibase)
                try DIDs.checkProof(
                    proof,
                    expectedCall: DIDs.attributeCall(0, account: key.publicKey, name: did, value: expected.attributeValue, validFor: nil),
                    signer: key.publicKey,
                    nonce: 0
                )

                // Services: added (update_attribute of the same attribute), removed.
                let data = ["id": "#owner", "type": "owner", "data": "machine-42"]
                let added = try await client.substrate(.post, "/dids/\(did)/services", token: token, data)
                #expect(added.status == .created, "\(added.text)")
                let addedProof = try #require((try Self.json(added)["didDocumentMetadata"] as? [String: Any])?["proof"] as? [String: Any])
                #expect(addedProof["call"] as? String == "PeaqDid.update_attribute")
                #expect(try await Self.storedDocument(client, did: did, name: did, token: token).services.map(\.id) == ["#api", "#owner"])
                let removed = try await client.substrate(.delete, "/dids/\(did)/services/%23api", token: token)
                #expect(removed.status == .ok, "\(removed.text)")
                #expect(try await Self.storedDocument(client, did: did, name: did, token: token).services.map(\.id) == ["#owner"])

                // W3C views: by Accept, and by ?format=.
                let ld = try await client.substrate(.get, "/dids/\(did)", token: token, headers: [.accept: "application/did+ld+json"])
                #expect(ld.status == .ok, "\(ld.text)")
                #expect(ld.headers[.contentType] == "application/did+ld+json")
                let w3c = try Self.json(ld)
                let context = try #require(w3c["@context"] as? [Any])
                #expect(context.first as? String == "https://www.w3.org/ns/did/v1")
                #expect(w3c["id"] as? String == did)
                #expect(w3c["controller"] as? String == did)
                let methods = try #require(w3c["verificationMethod"] as? [[String: Any]])
                #expect(methods.count == 1)
                #expect(methods.first?["id"] as? String == did + "#keys-1")
                #expect(methods.first?["type"] as? String == "Sr25519VerificationKey2020")
                #expect(methods.first?["publicKeyMultibase"] as? String == multibase)
                #expect(w3c["authentication"] as? [String] == [did + "#keys-1"])
                let services = try #require(w3c["service"] as? [[String: Any]])
                #expect(services.count == 1)
                #expect(services.first?["data"] as? String == "machine-42")
                #expect(services.first?["serviceEndpoint"] == nil)

                let resolution = try await client.substrate(.get, "/dids/\(did)?format=did-resolution", token: token)
                #expect(resolution.status == .ok, "\(resolution.text)")
                #expect(resolution.headers[.contentType] == DIDResolution.resultContentType)
                let resolved = try Self.json(resolution)
                let resolvedMetadata = try #require(resolved["didDocumentMetadata"] as? [String: Any])
                let createdAt = try #require(resolvedMetadata["created"] as? String)
                let updatedAt = try #require(resolvedMetadata["updated"] as? String)
                #expect(LedgerTimestamp(rfc3339: createdAt) != nil)
                #expect(createdAt <= updatedAt)
                #expect(resolvedMetadata["anchoredBlock"] is NSNull)
                #expect(resolvedMetadata["peaqAttribute"] as? String == did)
                #expect((resolved["didResolutionMetadata"] as? [String: Any])?["contentType"] as? String == "application/did+ld+json")
                #expect((resolved["didDocument"] as? [String: Any])?["id"] as? String == did)
                let byQuery = try await client.substrate(.get, "/dids/\(did)?format=did-document", token: token)
                #expect(byQuery.text == ld.text)

                // Today's JSON stays the default, and lists the document's attribute.
                let registry = try await client.substrate(.get, "/dids/\(did)", token: token)
                #expect(registry.headers[.contentType] == "application/json")
                #expect((registry.object["attributes"] as? [[String: Any]])?.first?["name"] as? String == did)

                #expect(try await count(DIDs.proofCount, in: hub) == 3)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeUpdated, in: hub) == 2)
            }
        }

        @Test("refusals: bad documents and services, someone else's DID, no document; nothing changed", arguments: TestBackend.enabled)
        func refusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let alice = try await client.signIn(TestKey(seed: 1))
                let (address, _) = try await DIDs.custodialWallet(client, token: alice)
                let did = "did:peaq:\(address)"
                let bob = try await client.signIn(TestKey(seed: 2))
                let (bobAddress, _) = try await DIDs.custodialWallet(client, token: bob)
                let bobDID = "did:peaq:\(bobAddress)"

                // Before any document.
                let none = try await client.substrate(.get, "/dids/\(did)", token: alice, headers: [.accept: "application/did+ld+json"])
                #expect(none.status == .notFound)
                #expect(none.object["code"] as? String == "did_document_not_found")
                let noDocument = try await client.substrate(.post, "/dids/\(did)/services", token: alice, ["id": "#a", "type": "t", "data": "x"])
                #expect(noDocument.object["code"] as? String == "did_document_not_found", "\(noDocument.text)")

                let first = try await client.substrate(.post, "/dids", token: alice, ["address": did])
                #expect(first.status == .created, "\(first.text)")
                let proofs = try await count(DIDs.proofCount, in: hub)

                let long = String(repeating: "n", count: 65)
                let cases: [(String, HTTPRequest.Method, String, String, [String: Any]?, HTTPResponse.Status, String)] = [
                    ("no address", .post, alice, "/dids", [:], .unprocessableContent, "invalid_supplied_value"),
                    ("not an address", .post, alice, "/dids", ["address": "nope"], .unprocessableContent, "invalid_address"),
                    ("someone else's wallet", .post, alice, "/dids", ["address": bobAddress], .forbidden, "attribute_authorization_failed"),
                    ("a second document", .post, alice, "/dids", ["address": address, "name": "other"], .conflict, "did_document_exists"),
                    ("the same name again", .post, alice, "/dids", ["address": address], .conflict, "attribute_already_exist"),
                    (
                        "a name over 64 bytes", .post, bob, "/dids", ["address": bobAddress, "name": long], .unprocessableContent,
                        "attribute_name_exceed_max64"
                    ),
                    (
                        "a service with neither endpoint nor data", .post, bob, "/dids",
                        ["address": bobAddress, "services": [["id": "#a", "type": "t"]]],
                        .unprocessableContent, "invalid_supplied_value"
                    ),
                    (
                        "two services with one id", .post, bob, "/dids",
                        ["address": bobAddress, "services": [["id": "#a", "type": "t", "data": "1"], ["id": "#a", "type": "t", "data": "2"]]],
                        .unprocessableContent, "invalid_supplied_value"
                    ),
                    (
                        "a signature without hash", .post, bob, "/dids",
                        ["address": bobAddress, "signature": ["type": "t", "issuer": did, "hash": ""]],
                        .unprocessableContent, "invalid_supplied_value"
                    ),
                    (
                        "someone else's DID: add a service", .post, bob, "/dids/\(did)/services", ["id": "#b", "type": "t", "data": "x"], .forbidden,
                        "attribute_authorization_failed"
                    ),
                    (
                        "someone else's DID: remove a service", .delete, bob, "/dids/\(did)/services/%23b", nil, .forbidden,
                        "attribute_authorization_failed"
                    ),
                    ("an unknown service", .delete, alice, "/dids/\(did)/services/%23b", nil, .notFound, "service_not_found"),
                    (
                        "a service without type", .post, alice, "/dids/\(did)/services", ["id": "#b", "data": "x"], .unprocessableContent,
                        "missing_field"
                    ),
                    (
                        "an over-long service endpoint", .post, alice, "/dids/\(did)/services",
                        ["id": "#b", "type": "t", "service_endpoint": String(repeating: "e", count: 2049)], .unprocessableContent,
                        "invalid_supplied_value"
                    ),
                    ("an unknown format", .get, alice, "/dids/\(did)?format=xml", nil, .unprocessableContent, "invalid_field"),
                    ("a DID of no document", .get, alice, "/dids/\(bobDID)?format=did-document", nil, .notFound, "did_document_not_found"),
                ]
                for (label, method, token, path, body, status, code) in cases {
                    let response = try await client.substrate(method, path, token: token, body)
                    #expect(response.status == status, "\(label): \(response.text)")
                    #expect(response.object["code"] as? String == code, "\(label): \(response.text)")
                }
                #expect(try await count(DIDs.proofCount, in: hub) == proofs)

                // A service id taken, then the document overwritten through the attributes API
                // with something that is not one: the services refuse and change nothing.
                #expect(
                    try await client.substrate(.post, "/dids/\(did)/services", token: alice, ["id": "#b", "type": "t", "data": "x"]).status
                        == .created
                )
                let taken = try await client.substrate(.post, "/dids/\(did)/services", token: alice, ["id": "#b", "type": "t", "data": "y"])
                #expect(taken.status == .conflict)
                #expect(taken.object["code"] as? String == "service_already_exist")
                let name = did.replacingOccurrences(of: ":", with: "%3A")
                let garbage = try await client.substrate(.put, "/dids/\(did)/attributes/\(name)", token: alice, ["value": "0a05"])
                #expect(garbage.status == .ok, "\(garbage.text)")
                let gone = try await client.substrate(.delete, "/dids/\(did)/services/%23b", token: alice)
                #expect(gone.status == .notFound)
                #expect(gone.object["code"] as? String == "did_document_not_found")
                #expect(try await count(DIDs.proofCount, in: hub) == proofs + 2)
            }
        }
    }
}
