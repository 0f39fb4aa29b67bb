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

/// The peaq mainnet genesis runtime's metadata (`Tests/Fixtures/substrate/`), with `PeaqDid` at 100.
let peaqMetadataFile = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/substrate/peaq-mainnet-genesis-v14.scale").path

let didConfig = "{\"metadata_file\": \"\(peaqMetadataFile)\"}"

extension SubstrateRailTests {
    /// `/v1/rails/substrate/dids`: the hub's own DID registry with the PeaqDid pallet's rules,
    /// every change a signed `PeaqDid` extrinsic kept as its proof.
    @Suite("Substrate rail: DIDs", .timeLimit(.minutes(4)))
    struct SubstrateDIDTests {
        static let attributeCount: SQL = "SELECT count(*) AS n FROM substrate_did_attributes"
        static let proofCount: SQL = "SELECT count(*) AS n FROM substrate_did_proofs"

        /// A new custodial wallet of the caller: its address and key (from the words shown once).
        static func custodialWallet(_ client: any TestClientProtocol, token: String) async throws -> (address: String, key: TestKey) {
            let created = try await client.substrate(.post, "/wallets", token: token, ["kind": "custodial"])
            #expect(created.status == .created, "\(created.text)")
            let mnemonic = try #require(created.object["mnemonic"] as? String)
            return (try #require(created.object["address"] as? String), try TestKey(mnemonic: mnemonic))
        }

        /// Checks a proof with ChainKit alone: the wire layout, the call as rails.md §4.1 writes
        /// it byte for byte, the hash, and the sr25519 signature over the payload.
        static func checkProof(_ proof: [String: Any], expectedCall: [UInt8], signer: [UInt8], nonce: UInt64) throws {
            let metadata = try RuntimeMetadata(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: peaqMetadataFile))))
            let hex = try #require(proof["extrinsic"] as? String)
            let bytes = try #require(HexText.decode(hex))
            #expect(proof["hash"] as? String == "0x" + HexText.encode(blake2b256(bytes)))
            #expect(proof["nonce"] as? Int == Int(nonce))
            var outer = SCALEDecoder(bytes)
            let body = try outer.decodeBytes()
            try outer.finish()
            #expect(body[0] == 0x84)
            #expect(body[1] == 0x00)  // MultiAddress::Id
            #expect(Array(body[2..<34]) == signer)
            #expect(body[34] == 0x01)  // MultiSignature::Sr25519
            let signature = Array(body[35..<99])
            let call = RuntimeCall(index: CallIndex(pallet: expectedCall[0], call: expectedCall[1]), arguments: Array(expectedCall[2...]))
            let version = try metadata.runtimeVersion()
            let payload = try SigningPayload(
                metadata: metadata,
                call: call,
                values: SignedExtensionValues(
                    nonce: nonce,
                    specVersion: version.specVersion,
                    transactionVersion: version.transactionVersion,
                    genesisHash: [UInt8](repeating: 0, count: 32)
                )
            )
            #expect(Array(body[99...]) == payload.extra + expectedCall)
            #expect(Sr25519.verify(signature, message: payload.message, publicKey: signer))
            var forged = signature
            forged[0] ^= 1
            #expect(!Sr25519.verify(forged, message: payload.message, publicKey: signer))
            // And the rail's own reader gives the same call back, and refuses a changed one.
            let chain = try DIDChain(metadata: metadata)
            let verified = try chain.verify(bytes)
            #expect(verified.call.encoded == expectedCall)
            #expect(verified.signer == signer)
            var tampered = bytes
            tampered[tampered.count - 2] ^= 1
            #expect(throws: DIDProofError.self) { try chain.verify(tampered) }
        }

        /// `add_attribute` / `update_attribute` as rails.md §4.1 spells the call out.
        static func attributeCall(_ index: UInt8, account: [UInt8], name: String, value: [UInt8], validFor: UInt32?) -> [UInt8] {
            var encoder = SCALEEncoder()
            encoder.encodeBytes(Array(name.utf8))
            encoder.encodeBytes(value)
            var call: [UInt8] = [0x64, index] + account + encoder.bytes
            if let validFor {
                call += [0x01] + withUnsafeBytes(of: validFor.littleEndian, Array.init)
            } else {
                call += [0x00]
            }
            return call
        }

        @Test("add, read, update and remove an attribute, each change a signed PeaqDid extrinsic that verifies", arguments: TestBackend.enabled)
        func flow(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let (address, key) = try await Self.custodialWallet(client, token: token)
                let did = "did:peaq:\(address)"

                let added = try await client.substrate(
                    .post,
                    "/dids/\(did)/attributes",
                    token: token,
                    ["name": "type", "value": "sensor"],
                    headers: [.idempotencyKey: "did-add-1"]
                )
                #expect(added.status == .created, "\(added.text)")
                // A retry with the key is answered the same, and signs nothing again.
                let retried = try await client.substrate(
                    .post,
                    "/dids/\(did)/attributes",
                    token: token,
                    ["name": "type", "value": "sensor"],
                    headers: [.idempotencyKey: "did-add-1"]
                )
                #expect(retried.status == .created)
                #expect(retried.headers[.idempotencyReplayed] != nil)
                #expect(retried.text == added.text)
                #expect(try await count(Self.proofCount, in: hub) == 1)
                #expect(added.object["did"] as? String == did)
                #expect(added.object["name"] as? String == "type")
                #expect(added.object["value"] as? String == "sensor")
                #expect(added.object["value_hex"] as? String == "0x" + HexText.encode(Array("sensor".utf8)))
                #expect(added.object["validity"] as? Int == Int(UInt32.max))
                #expect(added.object["valid"] as? Bool == true)
                let created = try #require(added.object["created"] as? Int)
                let addProof = try #require(added.object["proof"] as? [String: Any])
                #expect(addProof["call"] as? String == "PeaqDid.add_attribute")
                try Self.checkProof(
                    addProof,
                    expectedCall: Self.attributeCall(0, account: key.publicKey, name: "type", value: Array("sensor".utf8), validFor: nil),
                    signer: key.publicKey,
                    nonce: 0
                )

                // Read one, and the DID (any prefix of the address names the same DID).
                let one = try await client.substrate(.get, "/dids/\(did)/attributes/type", token: token)
                #expect(one.status == .ok, "\(one.text)")
                #expect(one.object["value"] as? String == "sensor")
                #expect((one.object["proof"] as? [String: Any])?["hash"] as? String == addProof["hash"] as? String)
                let document = try await client.substrate(.get, "/dids/did:peaq:\(key.address(prefix: 0))", token: token)
                #expect(document.status == .ok, "\(document.text)")
                #expect(document.object["did"] as? String == did)
                #expect((document.object["attributes"] as? [[String: Any]])?.count == 1)

                // Any UTF-8 name, percent-encoded in paths.
                let spaced = try await client.substrate(.post, "/dids/\(did)/attributes", token: token, ["name": "serial nº", "value": "42"])
                #expect(spaced.status == .created, "\(spaced.text)")
                let location = try #require(spaced.headers[.location])
                #expect(location == "/v1/rails/substrate/dids/\(did)/attributes/serial%20n%C2%BA")
                let spacedRead = try await client.execute(uri: location, method: .get, headers: [.authorization: "Bearer \(token)"])
                #expect(spacedRead.object["name"] as? String == "serial nº", "\(spacedRead.text)")
                #expect(try await client.substrate(.delete, "/dids/\(did)/attributes/serial%20n%C2%BA", token: token).status == .ok)

                // The caller's DIDs, one per wallet.
                let mine = try await client.substrate(.get, "/dids", token: token)
                #expect(mine.status == .ok, "\(mine.text)")
                let rows = try #require(mine.object["data"] as? [[String: Any]])
                #expect(rows.map { $0["did"] as? String } == [did])
                #expect(rows.first?["attributes"] as? Int == 1)
                #expect(rows.first?["wallet_kind"] as? String == "custodial")
                let detail = try await client.substrate(.get, "/dids/\(did.replacingOccurrences(of: ":", with: "%3A"))", token: token)
                #expect(detail.status == .ok, "\(detail.text)")

                // Update: new value (hex) and validity, `created` kept.
                let updated = try await client.substrate(
                    .put,
                    "/dids/\(did)/attributes/type",
                    token: token,
                    ["value_hex": "0x00ff01", "valid_for": 10]
                )
                #expect(updated.status == .ok, "\(updated.text)")
                #expect(updated.object["value_hex"] as? String == "0x00ff01")
                #expect(updated.object["created"] as? Int == created)
                let block = Int(DIDRegistry.block(at: LedgerClock.system.now()))
                let validity = try #require(updated.object["validity"] as? Int)
                #expect((block + 9...block + 10).contains(validity))
                let updateProof = try #require(updated.object["proof"] as? [String: Any])
                #expect(updateProof["call"] as? String == "PeaqDid.update_attribute")
                try Self.checkProof(
                    updateProof,
                    expectedCall: Self.attributeCall(1, account: key.publicKey, name: "type", value: [0x00, 0xFF, 0x01], validFor: 10),
                    signer: key.publicKey,
                    nonce: 3
                )

                // Remove: answered with its proof, kept after the attribute is gone.
                let removed = try await client.substrate(.delete, "/dids/\(did)/attributes/type", token: token)
                #expect(removed.status == .ok, "\(removed.text)")
                let removeProof = try #require(removed.object["proof"] as? [String: Any])
                #expect(removeProof["call"] as? String == "PeaqDid.remove_attribute")
                var removeCall: [UInt8] = [0x64, 0x03] + key.publicKey
                var encoder = SCALEEncoder()
                encoder.encodeBytes(Array("type".utf8))
                removeCall += encoder.bytes
                try Self.checkProof(removeProof, expectedCall: removeCall, signer: key.publicKey, nonce: 4)
                let gone = try await client.substrate(.get, "/dids/\(did)/attributes/type", token: token)
                #expect(gone.status == .notFound)
                #expect(gone.object["code"] as? String == "attribute_not_found")

                #expect(try await count(Self.attributeCount, in: hub) == 0)
                #expect(try await count(Self.proofCount, in: hub) == 5)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 2)
                #expect(try await events(SubstrateEvents.didAttributeUpdated, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeRemoved, in: hub) == 2)
            }
        }

        @Test("the pallet's errors as problem codes, and nothing changed", arguments: TestBackend.enabled)
        func refusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let alice = try await client.signIn(TestKey(seed: 1))
                let (address, _) = try await Self.custodialWallet(client, token: alice)
                let did = "did:peaq:\(address)"
                // The address with its last character changed (a random address may end in "x").
                let badChecksum = String(address.dropLast()) + (address.hasSuffix("x") ? "y" : "x")
                let first = try await client.substrate(.post, "/dids/\(did)/attributes", token: alice, ["name": "owner", "value": "alice"])
                #expect(first.status == .created, "\(first.text)")

                let bob = try await client.signIn(TestKey(seed: 2))
                let external = TestKey(seed: 3)
                let registered = try await client.registerExternal(external, token: bob)
                #expect(registered.status == .created, "\(registered.text)")
                let long = String(repeating: "n", count: 65)

                let cases: [(String, HTTPRequest.Method, String, String, [String: Any]?, HTTPResponse.Status, String)] = [
                    (
                        "name over 64 bytes", .post, alice, "/dids/\(did)/attributes", ["name": long, "value": "x"], .unprocessableContent,
                        "attribute_name_exceed_max64"
                    ),
                    (
                        "64 two-byte characters", .post, alice, "/dids/\(did)/attributes", ["name": String(repeating: "é", count: 33), "value": "x"],
                        .unprocessableContent, "attribute_name_exceed_max64"
                    ),
                    (
                        "duplicate add", .post, alice, "/dids/\(did)/attributes", ["name": "owner", "value": "again"], .conflict,
                        "attribute_already_exist"
                    ),
                    (
                        "update of an unknown attribute", .put, alice, "/dids/\(did)/attributes/nothing", ["value": "x"], .notFound,
                        "attribute_not_found"
                    ),
                    ("removal of an unknown attribute", .delete, alice, "/dids/\(did)/attributes/nothing", nil, .notFound, "attribute_not_found"),
                    (
                        "someone else's DID: add", .post, bob, "/dids/\(did)/attributes", ["name": "mine", "value": "x"], .forbidden,
                        "attribute_authorization_failed"
                    ),
                    (
                        "someone else's DID: update", .put, bob, "/dids/\(did)/attributes/owner", ["value": "bob"], .forbidden,
                        "attribute_authorization_failed"
                    ),
                    ("someone else's DID: remove", .delete, bob, "/dids/\(did)/attributes/owner", nil, .forbidden, "attribute_authorization_failed"),
                    (
                        "validity past u32::MAX", .put, alice, "/dids/\(did)/attributes/owner", ["value": "x", "valid_for": Int(UInt32.max)],
                        .unprocessableContent, "max_block_number_exceeded"
                    ),
                    (
                        "value and value_hex", .put, alice, "/dids/\(did)/attributes/owner", ["value": "x", "value_hex": "00"], .unprocessableContent,
                        "invalid_supplied_value"
                    ),
                    (
                        "not a peaq DID", .post, alice, "/dids/did:web:example.com/attributes", ["name": "a", "value": "x"], .unprocessableContent,
                        "parse_error"
                    ),
                    (
                        "bad SS58 checksum", .post, alice, "/dids/did:peaq:\(badChecksum)/attributes", ["name": "a", "value": "x"],
                        .unprocessableContent, "parse_error"
                    ),
                    ("bad DID read", .get, alice, "/dids/did:peaq:nope", nil, .unprocessableContent, "parse_error"),
                    (
                        "an external wallet's DID", .post, bob, "/dids/did:peaq:\(external.address())/attributes", ["name": "a", "value": "x"],
                        .unprocessableContent, "custodial_key_required"
                    ),
                ]
                for (label, method, token, path, body, status, code) in cases {
                    let response = try await client.substrate(method, path, token: token, body)
                    #expect(response.status == status, "\(label): \(response.text)")
                    #expect(response.object["code"] as? String == code, "\(label): \(response.text)")
                }

                #expect(try await count(Self.attributeCount, in: hub) == 1)
                #expect(try await count(Self.proofCount, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeUpdated, in: hub) == 0)
                #expect(try await events(SubstrateEvents.didAttributeRemoved, in: hub) == 0)
                let still = try await client.substrate(.get, "/dids/\(did)/attributes/owner", token: bob)
                #expect(still.status == .ok, "\(still.text)")
                #expect(still.object["value"] as? String == "alice")
            }
        }

        @Test("with no configuration DIDs use peaq's bundled metadata; metadata without PeaqDid is refused", arguments: [TestBackend.sqlite])
        func bundledMetadata(backend: TestBackend) async throws {
            let substrateNode = URL(fileURLWithPath: peaqMetadataFile).deletingLastPathComponent().appendingPathComponent("py-scale-codec-v14.scale")
            let metadata = try RuntimeMetadata(bytes: Array(try Data(contentsOf: substrateNode)))
            #expect(throws: PluginConfigError.self) { try DIDChain(metadata: metadata) }
            try await withSubstrateHub(on: backend) { _, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let wallet = try await client.substrate(.post, "/wallets", token: token, ["kind": "custodial"])
                let did = "did:peaq:" + (try #require(wallet.object["address"] as? String))
                let added = try await client.substrate(.post, "/dids/\(did)/attributes", token: token, ["name": "role", "value": "attendee"])
                #expect(added.status == .created, "\(added.text)")
            }
        }
    }
}
