import ChainKit
import Foundation
import HubKernel
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubSubstrate

extension SubstrateRailTests {
    /// DID changes the holder signs with their own wallet: `POST …/dids/{did}/changes/prepare`
    /// answers the `PeaqDid` extrinsic's signing message, `POST …/dids/{did}/changes` takes it back
    /// signed. The way to change the DID of an external wallet, whose key the hub never holds.
    @Suite("Substrate rail: DID changes signed by their holder", .timeLimit(.minutes(4)))
    struct SubstrateDIDSignedChangeTests {
        typealias DIDs = SubstrateDIDTests

        /// Prepares `body`: the answer (200 expected) and the message to sign.
        static func prepare(
            _ client: any TestClientProtocol,
            did: String,
            token: String,
            _ body: [String: Any]
        ) async throws -> (answer: [String: Any], message: [UInt8]) {
            let prepared = try await client.substrate(.post, "/dids/\(did)/changes/prepare", token: token, body)
            #expect(prepared.status == .ok, "\(prepared.text)")
            let messageHex = try #require(prepared.object["message"] as? String)
            return (prepared.object, try #require(HexText.decode(messageHex)))
        }

        /// Prepares `body`, signs the answered message with `key` and submits it: the submit's response.
        static func signAndSubmit(
            _ client: any TestClientProtocol,
            did: String,
            token: String,
            key: TestKey,
            _ body: [String: Any]
        ) async throws -> (prepared: [String: Any], submitted: TestResponse) {
            let prepared = try await prepare(client, did: did, token: token, body)
            var signed = body
            signed["nonce"] = prepared.answer["nonce"]
            signed["signature"] = key.sign(bytes: prepared.message)
            return (prepared.answer, try await client.substrate(.post, "/dids/\(did)/changes", token: token, signed))
        }

        @Test(
            "an external wallet's holder adds, updates and removes an attribute; each proof carries their signature",
            arguments: TestBackend.enabled
        )
        func holderSigns(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let bob = try await client.signIn(TestKey(seed: 2))
                let key = TestKey(seed: 3)
                #expect(try await client.registerExternal(key, token: bob).status == .created)
                let did = "did:peaq:\(key.address())"

                let add: [String: Any] = ["call": "add_attribute", "name": "owner", "value": "bob"]
                let prepared = try await client.substrate(.post, "/dids/\(did)/changes/prepare", token: bob, add)
                #expect(prepared.status == .ok, "\(prepared.text)")
                #expect(prepared.object["nonce"] as? Int == 0)
                #expect(prepared.object["signer"] as? String == key.address())
                #expect(prepared.object["did"] as? String == did)
                #expect(try await count(DIDs.attributeCount, in: hub) == 0, "preparing changed something")
                // The payload is short, so the message is the payload itself.
                #expect(prepared.object["message"] as? String == prepared.object["payload"] as? String)

                let (_, added) = try await Self.signAndSubmit(client, did: did, token: bob, key: key, add)
                #expect(added.status == .created, "\(added.text)")
                #expect(added.object["value"] as? String == "bob")
                let addCall = DIDs.attributeCall(0, account: key.publicKey, name: "owner", value: Array("bob".utf8), validFor: nil)
                let addProof = try #require(added.object["proof"] as? [String: Any])
                try DIDs.checkProof(addProof, expectedCall: addCall, signer: key.publicKey, nonce: 0)

                let update: [String: Any] = ["call": "update_attribute", "name": "owner", "value_hex": "0x00ff", "valid_for": 10]
                let (updatePrepared, updated) = try await Self.signAndSubmit(client, did: did, token: bob, key: key, update)
                #expect(updatePrepared["nonce"] as? Int == 1)
                #expect(updated.status == .ok, "\(updated.text)")
                let updateCall = DIDs.attributeCall(1, account: key.publicKey, name: "owner", value: [0x00, 0xFF], validFor: 10)
                let updateProof = try #require(updated.object["proof"] as? [String: Any])
                try DIDs.checkProof(updateProof, expectedCall: updateCall, signer: key.publicKey, nonce: 1)

                let (_, removed) = try await Self.signAndSubmit(
                    client,
                    did: did,
                    token: bob,
                    key: key,
                    ["call": "remove_attribute", "name": "owner"]
                )
                #expect(removed.status == .ok, "\(removed.text)")
                var encoder = SCALEEncoder()
                encoder.encodeBytes(Array("owner".utf8))
                let removeCall: [UInt8] = [0x64, 0x03] + key.publicKey + encoder.bytes
                let removeProof = try #require(removed.object["proof"] as? [String: Any])
                try DIDs.checkProof(removeProof, expectedCall: removeCall, signer: key.publicKey, nonce: 2)

                #expect(try await count(DIDs.attributeCount, in: hub) == 0)
                #expect(try await count(DIDs.proofCount, in: hub) == 3)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeUpdated, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeRemoved, in: hub) == 1)
            }
        }

        @Test("two changes signed for one nonce and submitted at once: one is made, the other is nonce_stale", arguments: TestBackend.enabled)
        func race(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let bob = try await client.signIn(TestKey(seed: 2))
                let key = TestKey(seed: 3)
                #expect(try await client.registerExternal(key, token: bob).status == .created)
                let did = "did:peaq:\(key.address())"
                var signed: [[String: Any]] = []
                for name in ["a", "b", "c", "d"] {
                    var body: [String: Any] = ["call": "add_attribute", "name": name, "value": name]
                    let prepared = try await Self.prepare(client, did: did, token: bob, body)
                    body["nonce"] = 0
                    body["signature"] = key.sign(bytes: prepared.message)
                    signed.append(body)
                }
                let bodies = signed.map { body in (try? JSONSerialization.data(withJSONObject: body)) ?? Data() }
                let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                    for body in bodies {
                        group.addTask {
                            let object = try JSONSerialization.jsonObject(with: body)
                            let response = try await client.substrate(.post, "/dids/\(did)/changes", token: bob, object)
                            return (response.status, response.object["code"] as? String)
                        }
                    }
                    return try await group.reduce(into: [(HTTPResponse.Status, String?)]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0.0 == .created }.count == 1, "\(statuses)")
                #expect(statuses.filter { $0.0 == .conflict && $0.1 == "nonce_stale" }.count == 3, "\(statuses)")
                #expect(try await count(DIDs.attributeCount, in: hub) == 1)
                #expect(try await count(DIDs.proofCount, in: hub) == 1)
            }
        }

        @Test(
            "a stale nonce, a wrong or malformed signature, another change than the one signed, someone else: refused, nothing changed",
            arguments: TestBackend.enabled
        )
        func refusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let bob = try await client.signIn(TestKey(seed: 2))
                let key = TestKey(seed: 3)
                #expect(try await client.registerExternal(key, token: bob).status == .created)
                let did = "did:peaq:\(key.address())"
                let alice = try await client.signIn(TestKey(seed: 1))

                // Two changes prepared for the same nonce: the first submitted wins, the second is stale.
                let first: [String: Any] = ["call": "add_attribute", "name": "a", "value": "1"]
                let second: [String: Any] = ["call": "add_attribute", "name": "b", "value": "2"]
                let secondMessage = try await Self.prepare(client, did: did, token: bob, second).message
                let (_, firstSubmitted) = try await Self.signAndSubmit(client, did: did, token: bob, key: key, first)
                #expect(firstSubmitted.status == .created, "\(firstSubmitted.text)")

                let message = try await Self.prepare(client, did: did, token: bob, second).message
                func submit(_ body: [String: Any], nonce: Any?, signature: Any?) -> [String: Any] {
                    var body = body
                    body["nonce"] = nonce
                    body["signature"] = signature
                    return body
                }
                let other = TestKey(seed: 4)
                let cases: [(String, String, String, [String: Any], HTTPResponse.Status, String)] = [
                    (
                        "signed for a used nonce", bob, "/changes", submit(second, nonce: 0, signature: key.sign(bytes: secondMessage)), .conflict,
                        "nonce_stale"
                    ),
                    (
                        "another key's signature", bob, "/changes", submit(second, nonce: 1, signature: other.sign(bytes: message)),
                        .unprocessableContent, "invalid_signature"
                    ),
                    (
                        "another value than the one signed", bob, "/changes",
                        submit(["call": "add_attribute", "name": "b", "value": "3"], nonce: 1, signature: key.sign(bytes: message)),
                        .unprocessableContent, "invalid_signature"
                    ),
                    ("a short signature", bob, "/changes", submit(second, nonce: 1, signature: "0x00"), .unprocessableContent, "invalid_signature"),
                    (
                        "a signature that is not hex", bob, "/changes", submit(second, nonce: 1, signature: "zz"), .unprocessableContent,
                        "invalid_signature"
                    ),
                    (
                        "no nonce", bob, "/changes", submit(second, nonce: nil, signature: key.sign(bytes: message)), .unprocessableContent,
                        "invalid_supplied_value"
                    ),
                    (
                        "read_attribute", bob, "/changes/prepare", ["call": "read_attribute", "name": "a"], .unprocessableContent,
                        "invalid_supplied_value"
                    ),
                    (
                        "an unknown call", bob, "/changes/prepare", ["call": "set", "name": "a", "value": "x"], .unprocessableContent,
                        "invalid_supplied_value"
                    ),
                    (
                        "a removal with a value", bob, "/changes/prepare", ["call": "remove_attribute", "name": "a", "value": "x"],
                        .unprocessableContent, "invalid_supplied_value"
                    ),
                    ("an attribute that exists", bob, "/changes/prepare", first, .conflict, "attribute_already_exist"),
                    (
                        "an update of nothing", bob, "/changes/prepare", ["call": "update_attribute", "name": "z", "value": "x"], .notFound,
                        "attribute_not_found"
                    ),
                    ("someone else's DID: prepare", alice, "/changes/prepare", second, .forbidden, "attribute_authorization_failed"),
                    (
                        "someone else's DID: submit", alice, "/changes", submit(second, nonce: 1, signature: key.sign(bytes: message)), .forbidden,
                        "attribute_authorization_failed"
                    ),
                ]
                for (label, token, path, body, status, code) in cases {
                    let response = try await client.substrate(.post, "/dids/\(did)\(path)", token: token, body)
                    #expect(response.status == status, "\(label): \(response.text)")
                    #expect(response.object["code"] as? String == code, "\(label): \(response.text)")
                }
                #expect(try await count(DIDs.attributeCount, in: hub) == 1)
                #expect(try await count(DIDs.proofCount, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 1)

                // The right one still goes through.
                let accepted = try await client.substrate(
                    .post,
                    "/dids/\(did)/changes",
                    token: bob,
                    submit(second, nonce: 1, signature: key.sign(bytes: message))
                )
                #expect(accepted.status == .created, "\(accepted.text)")
            }
        }

        /// Signs what a document prepare route answered and submits it as a holder-signed change.
        static func submitPrepared(
            _ client: any TestClientProtocol,
            _ prepared: TestResponse,
            did: String,
            token: String,
            key: TestKey
        ) async throws -> TestResponse {
            #expect(prepared.status == .ok, "\(prepared.text)")
            let messageHex = try #require(prepared.object["message"] as? String)
            let message = try #require(HexText.decode(messageHex))
            var body: [String: Any] = [
                "call": try #require(prepared.object["call"] as? String), "name": try #require(prepared.object["name"] as? String),
                "nonce": try #require(prepared.object["nonce"] as? Int), "signature": key.sign(bytes: message),
            ]
            if let value = prepared.object["value_hex"] as? String { body["value_hex"] = value }
            return try await client.substrate(.post, "/dids/\(did)/changes", token: token, body)
        }

        @Test("an external wallet's holder writes its DID document and its services through prepared changes", arguments: TestBackend.enabled)
        func holderDocument(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let bob = try await client.signIn(TestKey(seed: 2))
                let key = TestKey(seed: 3)
                #expect(try await client.registerExternal(key, token: bob).status == .created)
                let did = "did:peaq:\(key.address())"
                let service: [String: Any] = ["id": "#site", "type": "website", "service_endpoint": "https://example.test"]

                // POST /dids itself needs a key the hub holds.
                let direct = try await client.substrate(.post, "/dids", token: bob, ["address": key.address()])
                #expect(direct.object["code"] as? String == "custodial_key_required", "\(direct.text)")
                let prepared = try await client.substrate(.post, "/dids/prepare", token: bob, ["address": key.address(), "services": [service]])
                #expect(prepared.object["call"] as? String == "add_attribute")
                #expect(prepared.object["name"] as? String == did)
                #expect(try await count(DIDs.attributeCount, in: hub) == 0, "preparing changed something")
                let written = try await Self.submitPrepared(client, prepared, did: did, token: bob, key: key)
                #expect(written.status == .created, "\(written.text)")

                func document() async throws -> [String: Any] {
                    let resolved = try await client.substrate(.get, "/dids/\(did)?format=did-document", token: bob)
                    #expect(resolved.status == .ok, "\(resolved.text)")
                    return resolved.object
                }
                var shown = try await document()
                #expect(shown["id"] as? String == did)
                #expect((shown["service"] as? [[String: Any]])?.map { $0["id"] as? String } == ["#site"])
                let methods = try #require(shown["verificationMethod"] as? [[String: Any]])
                #expect(methods.first?["type"] as? String == "Sr25519VerificationKey2020")

                let mail: [String: Any] = ["id": "#mail", "type": "email", "data": "bob@example.test"]
                let addService = try await client.substrate(.post, "/dids/\(did)/services/prepare", token: bob, mail)
                #expect(addService.object["call"] as? String == "update_attribute")
                #expect(try await Self.submitPrepared(client, addService, did: did, token: bob, key: key).status == .ok)
                shown = try await document()
                #expect((shown["service"] as? [[String: Any]])?.count == 2)

                // A removal prepared, then overtaken by another change: its nonce is stale, nothing changes.
                let removal = try await client.substrate(.post, "/dids/\(did)/services/%23site/removal/prepare", token: bob)
                let other = try await client.substrate(.post, "/dids/\(did)/services/prepare", token: bob, ["id": "#x", "type": "t", "data": "d"])
                #expect(try await Self.submitPrepared(client, other, did: did, token: bob, key: key).status == .ok)
                let stale = try await Self.submitPrepared(client, removal, did: did, token: bob, key: key)
                #expect(stale.status == .conflict, "\(stale.text)")
                #expect(stale.object["code"] as? String == "nonce_stale")
                let again = try await client.substrate(.post, "/dids/\(did)/services/%23site/removal/prepare", token: bob)
                #expect(try await Self.submitPrepared(client, again, did: did, token: bob, key: key).status == .ok)
                shown = try await document()
                #expect((shown["service"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.sorted() == ["#mail", "#x"])

                // Refusals: an unknown service, a duplicate, someone else's DID.
                let missing = try await client.substrate(.post, "/dids/\(did)/services/%23nope/removal/prepare", token: bob)
                #expect(missing.object["code"] as? String == "service_not_found")
                let duplicate = try await client.substrate(.post, "/dids/\(did)/services/prepare", token: bob, mail)
                #expect(duplicate.object["code"] as? String == "service_already_exist")
                let alice = try await client.signIn(TestKey(seed: 4))
                let theirs = try await client.substrate(.post, "/dids/\(did)/services/prepare", token: alice, ["id": "#y", "type": "t", "data": "d"])
                #expect(theirs.object["code"] as? String == "attribute_authorization_failed", "\(theirs.text)")
                let second = try await client.substrate(.post, "/dids/prepare", token: bob, ["address": key.address(), "name": "other"])
                #expect(second.object["code"] as? String == "did_document_exists")
            }
        }
    }
}
