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
    /// Anchoring on a peaq node, the parts that need no node: the outbox written with each
    /// change, the API's answers without a node or with one that is down, and the pieces the
    /// anchorer decides with. The anchorer against a node runs in `scripts/substrate-anchor-test.sh`
    /// (a Python test node that verifies and applies `PeaqDid` calls).
    @Suite("Substrate rail: anchoring", .timeLimit(.minutes(4)))
    struct SubstrateAnchorTests {
        /// A node URL nothing listens on: the anchorer keeps retrying, reads answer 503.
        static let downNodeConfig = "{\"metadata_file\": \"\(peaqMetadataFile)\", \"node_url\": \"ws://127.0.0.1:9\", \"node_retry_ms\": 50}"

        @Test("with a node configured, each change queues its anchor in its own unit; without one, none", arguments: TestBackend.enabled)
        func outbox(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: Self.downNodeConfig) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let (address, _) = try await SubstrateDIDTests.custodialWallet(client, token: token)
                let did = "did:peaq:\(address)"
                let added = try await client.substrate(.post, "/dids/\(did)/attributes", token: token, ["name": "email", "value": "a@b.c"])
                #expect(added.status == .created, "\(added.text)")
                // A refused change queues nothing.
                let again = try await client.substrate(.post, "/dids/\(did)/attributes", token: token, ["name": "email", "value": "x"])
                #expect(again.status == .conflict)
                let removed = try await client.substrate(.delete, "/dids/\(did)/attributes/email", token: token)
                #expect(removed.status == .ok, "\(removed.text)")

                let anchors = try await client.substrate(.get, "/anchors", token: token)
                #expect(anchors.status == .ok, "\(anchors.text)")
                let rows = try #require(anchors.object["data"] as? [[String: Any]])
                #expect(rows.count == 2)
                #expect(rows.map { $0["call"] as? String } == ["PeaqDid.remove_attribute", "PeaqDid.add_attribute"])
                #expect(rows.allSatisfy { ($0["status"] as? String) == "pending" && ($0["did"] as? String) == did })
                let proofHash = try #require(added.object["proof"] as? [String: Any])["hash"] as? String
                #expect(rows.last?["proof_hash"] as? String == proofHash)
                #expect(try await count("SELECT count(*) AS n FROM substrate_did_anchors", in: hub) == 2)

                // Filters, and another user sees none of them.
                let pending = try await client.substrate(.get, "/anchors?status=pending&did=\(did)", token: token)
                #expect((pending.object["data"] as? [Any])?.count == 2)
                let finalized = try await client.substrate(.get, "/anchors?status=finalized", token: token)
                #expect((finalized.object["data"] as? [Any])?.count == 0)
                let bad = try await client.substrate(.get, "/anchors?status=done", token: token)
                #expect(bad.status == .unprocessableContent)
                #expect(bad.object["field"] as? String == "status")
                let badLimit = try await client.substrate(.get, "/anchors?limit=0", token: token)
                #expect(badLimit.status == .unprocessableContent)
                let other = try await client.signIn(TestKey(seed: 2))
                let theirs = try await client.substrate(.get, "/anchors", token: other)
                #expect((theirs.object["data"] as? [Any])?.count == 0)

                // The rail's health counts them.
                let plugins = try await client.execute(
                    uri: "/v1/plugins",
                    method: .get,
                    headers: [.authorization: "Bearer \(token)"],
                    body: nil
                )
                let substrate = (plugins.object["data"] as? [[String: Any]])?.first { $0["id"] as? String == "substrate" }
                let detail = (substrate?["health"] as? [String: Any])?["detail"] as? String
                #expect(detail?.hasSuffix("DID anchors: 2 on their way, 0 failed") == true, "\(plugins.text)")

                // A failed anchor is retried by its DID's user only, and only once failed.
                let owner = UnitOwner.rail(SubstratePlugin.id, eventTypes: SubstrateEvents.all)
                let shownHash = try #require(proofHash)
                let failedHash = try #require(HexText.decode(shownHash))
                _ = try await hub.ledger.write(as: owner) { unit in
                    try unit.connection.execute(
                        "UPDATE substrate_did_anchors SET status = 'failed', error = 'refused', signings = 5 WHERE proof_hash = \(failedHash)"
                    )
                }
                let stranger = try await client.substrate(.post, "/anchors/\(shownHash)/retry", token: other)
                #expect(stranger.status == .notFound)
                #expect(stranger.object["code"] as? String == "anchor_not_found")
                let retried = try await client.substrate(.post, "/anchors/\(shownHash)/retry", token: token)
                #expect(retried.status == .ok, "\(retried.text)")
                #expect(retried.object["status"] as? String == "pending")
                #expect(retried.object["signings"] as? Int == 0)
                let retriedAgain = try await client.substrate(.post, "/anchors/\(shownHash)/retry", token: token)
                #expect(retriedAgain.status == .conflict)
                #expect(retriedAgain.object["code"] as? String == "anchor_not_failed")
                let malformed = try await client.substrate(.post, "/anchors/0x12/retry", token: token)
                #expect(malformed.status == .unprocessableContent)

                // Node reads check their input before they go to the node.
                let badAddress = try await client.substrate(.get, "/node/accounts/5Nope", token: token)
                #expect(badAddress.status == .unprocessableContent)
                #expect(badAddress.object["code"] as? String == "invalid_address")
                let badDID = try await client.substrate(.get, "/node/dids/did:web:x/attributes/n", token: token)
                #expect(badDID.object["code"] as? String == "parse_error")
                let longName = String(repeating: "n", count: 65)
                let badName = try await client.substrate(.get, "/node/dids/\(did)/attributes/\(longName)", token: token)
                #expect(badName.object["code"] as? String == "attribute_name_exceed_max64")

                // The node is down: reads say so, and the anchors stay queued.
                let status = try await client.substrate(.get, "/node", token: token)
                #expect(status.status == .serviceUnavailable, "\(status.text)")
                #expect(status.object["code"] as? String == "node_unavailable")
                let account = try await client.substrate(.get, "/node/accounts/\(address)", token: token)
                #expect(account.status == .serviceUnavailable)
                #expect(try await count("SELECT count(*) AS n FROM substrate_did_anchors WHERE status = 'pending'", in: hub) == 2)
            }
        }

        @Test(
            "a holder's signature for the node: only for their own anchor awaiting it, checked before the node is asked",
            arguments: TestBackend.enabled
        )
        func holderSignatureRefusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: Self.downNodeConfig) { hub, client in
                let bob = try await client.signIn(TestKey(seed: 2))
                let key = TestKey(seed: 3)
                #expect(try await client.registerExternal(key, token: bob).status == .created)
                let did = "did:peaq:\(key.address())"
                let (_, added) = try await SubstrateDIDSignedChangeTests.signAndSubmit(
                    client,
                    did: did,
                    token: bob,
                    key: key,
                    ["call": "add_attribute", "name": "n", "value": "v"]
                )
                let proof = try #require((added.object["proof"] as? [String: Any])?["hash"] as? String)
                let signature = key.sign(bytes: [1, 2, 3])
                let body: [String: Any] = ["nonce": 0, "era_period": 64, "era_birth": 0, "signature": signature]

                // Still pending (the anchorer has not reached it): not awaiting a signature.
                let early = try await client.substrate(.post, "/anchors/\(proof)/signature", token: bob, body)
                #expect(early.status == .conflict)
                #expect(early.object["code"] as? String == "anchor_not_awaiting_signature")

                let owner = UnitOwner.rail(SubstratePlugin.id, eventTypes: SubstrateEvents.all)
                let hash = try #require(HexText.decode(proof))
                _ = try await hub.ledger.write(as: owner) { unit in
                    try unit.connection.execute("UPDATE substrate_did_anchors SET status = 'holder_signature_required' WHERE proof_hash = \(hash)")
                }
                let alice = try await client.signIn(TestKey(seed: 4))
                let cases: [(String, String, String, [String: Any], HTTPResponse.Status, String)] = [
                    ("someone else's prepare", alice, "/prepare", [:], .notFound, "anchor_not_found"),
                    ("someone else's signature", alice, "/signature", body, .notFound, "anchor_not_found"),
                    ("no nonce", bob, "/signature", body.filter { $0.key != "nonce" }, .unprocessableContent, "invalid_field"),
                    ("no era", bob, "/signature", body.filter { $0.key != "era_birth" }, .unprocessableContent, "invalid_field"),
                    ("not hex", bob, "/signature", body.merging(["signature": "zz"]) { $1 }, .unprocessableContent, "invalid_signature"),
                    ("short", bob, "/signature", body.merging(["signature": "0x1234"]) { $1 }, .unprocessableContent, "invalid_signature"),
                    (
                        "era period not a power of two", bob, "/signature", body.merging(["era_period": 48]) { $1 }, .unprocessableContent,
                        "invalid_field"
                    ),
                    ("the node is down", bob, "/signature", body, .serviceUnavailable, "node_unavailable"),
                    ("prepare, the node is down", bob, "/prepare", [:], .serviceUnavailable, "node_unavailable"),
                ]
                for (label, token, path, request, status, code) in cases {
                    let response = try await client.substrate(.post, "/anchors/\(proof)\(path)", token: token, request)
                    #expect(response.status == status, "\(label): \(response.text)")
                    #expect(response.object["code"] as? String == code, "\(label): \(response.text)")
                }
                let unknown = try await client.substrate(.post, "/anchors/0x\(String(repeating: "ab", count: 32))/prepare", token: bob, [:])
                #expect(unknown.object["code"] as? String == "anchor_not_found")
                let unchanged = try await hub.database.read { try DIDAnchors.anchor(hash, on: $0) }
                #expect(unchanged?.status == .holderSignatureRequired && unchanged?.extrinsic == nil && unchanged?.signings == 0)
            }
        }

        @Test("without a node: no anchors are queued and node reads are 404 node_not_configured", arguments: TestBackend.enabled)
        func offline(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let (address, _) = try await SubstrateDIDTests.custodialWallet(client, token: token)
                let added = try await client.substrate(.post, "/dids/did:peaq:\(address)/attributes", token: token, ["name": "n", "value": "v"])
                #expect(added.status == .created)
                #expect(try await count("SELECT count(*) AS n FROM substrate_did_anchors", in: hub) == 0)
                for path in ["/node", "/node/accounts/\(address)", "/node/dids/did:peaq:\(address)/attributes/n"] {
                    let response = try await client.substrate(.get, path, token: token)
                    #expect(response.status == .notFound, "\(path)")
                    #expect(response.object["code"] as? String == "node_not_configured")
                }
            }
        }

        @Test(
            "the node's configuration is checked",
            arguments: [
                "{\"node_url\": \"http://127.0.0.1:9944\"}", "{\"node_url\": \"\"}", "{\"node_retry_ms\": 100}",
                "{\"node_url\": \"ws://127.0.0.1:9944\", \"node_poll_ms\": 0}",
                "{\"node_url\": \"ws://127.0.0.1:9944\", \"node_retry_ms\": 600001}",
            ]
        )
        func configuration(json: String) throws {
            #expect(throws: PluginConfigError.self) { try SubstrateConfiguration(PluginConfig(json: json)) }
        }

        @Test("changes recorded before a node was configured are queued once, oldest first", arguments: TestBackend.enabled)
        func backfill(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: didConfig) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let (address, _) = try await SubstrateDIDTests.custodialWallet(client, token: token)
                for name in ["a", "b", "c"] {
                    let added = try await client.substrate(
                        .post,
                        "/dids/did:peaq:\(address)/attributes",
                        token: token,
                        ["name": name, "value": name]
                    )
                    #expect(added.status == .created)
                }
                #expect(try await count("SELECT count(*) AS n FROM substrate_did_anchors", in: hub) == 0)
                let owner = UnitOwner.rail(SubstratePlugin.id, eventTypes: SubstrateEvents.all)
                #expect(try await hub.ledger.write(as: owner) { try DIDAnchors.enqueueUnanchored(in: $0) } == 3)
                #expect(try await hub.ledger.write(as: owner) { try DIDAnchors.enqueueUnanchored(in: $0) } == 0)
                let oldest = try await hub.database.read { try DIDAnchors.oldest(.pending, on: $0) }
                #expect(oldest.map { String(decoding: $0.name, as: UTF8.self) } == "a")
                #expect(oldest?.signings == 0 && oldest?.extrinsic == nil)
            }
        }

        @Test("a node configuration reads")
        func configurationReads() throws {
            let configuration = try SubstrateConfiguration(
                PluginConfig(json: "{\"node_url\": \"wss://node.example/ws\", \"node_retry_ms\": 250, \"node_poll_ms\": 20}")
            )
            #expect(configuration.node?.url == "wss://node.example/ws")
            #expect(configuration.node?.retryDelay == .milliseconds(250))
            #expect(configuration.node?.pollInterval == .milliseconds(20))
            #expect(try SubstrateConfiguration(PluginConfig(json: "{}")).node == nil)
        }

        @Test("transaction statuses read as Substrate sends them")
        func statuses() throws {
            let hash = [UInt8](repeating: 0xAB, count: 32)
            let hex = "\"0x" + HexText.encode(hash) + "\""
            let cases: [(String, TransactionStatus?)] = [
                ("\"ready\"", .ready), ("\"future\"", .future), ("\"dropped\"", .dropped), ("\"invalid\"", .invalid),
                ("{\"inBlock\": \(hex)}", .inBlock(hash)), ("{\"finalized\": \(hex)}", .finalized(hash)),
                ("{\"broadcast\": [\"peer\"]}", .broadcast), ("{\"retracted\": \(hex)}", .retracted), ("{\"usurped\": \(hex)}", .usurped),
                ("\"pending\"", nil), ("{\"inBlock\": 5}", nil), ("{\"inBlock\": \(hex), \"finalized\": \(hex)}", nil),
            ]
            for (text, expected) in cases {
                let value = try #require(NodeJSON(parsing: text), "\(text)")
                #expect(TransactionStatus(value) == expected, "\(text)")
            }
        }

        @Test("JSON-RPC values: numbers keep their text, strings are escaped, hex quantities read")
        func nodeJSON() throws {
            let value = try #require(NodeJSON(parsing: "{\"id\": 18446744073709551615, \"n\": \"0x1f\", \"t\": true, \"s\": \"a\\\"b\\n\"}"))
            #expect(value["id"]?.unsigned == UInt64.max)
            #expect(value["n"]?.unsigned == 31)
            #expect(value["t"] == .bool(true))
            #expect(NodeJSON(parsing: value.text) == value)
            #expect(NodeJSON(parsing: "{") == nil)
        }

        @Test("a proof's call reads back for the node, and the chain's attribute is checked against it")
        func callAndStorageCheck() throws {
            let metadata = try RuntimeMetadata(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: peaqMetadataFile))))
            let chain = try DIDChain(metadata: metadata)
            let key = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 7, count: 32))
            for call in [
                DIDCall(kind: .addAttribute, didAccount: key.publicKey, name: Array("n".utf8), value: Array("v".utf8), validFor: 40),
                DIDCall(kind: .updateAttribute, didAccount: key.publicKey, name: Array("n".utf8), value: [], validFor: nil),
                DIDCall(kind: .removeAttribute, didAccount: key.publicKey, name: Array("n".utf8), value: nil, validFor: nil),
            ] {
                let proof = try chain.verify(try chain.sign(call, keyPair: key, nonce: 3).bytes)
                #expect(try DIDCall(proof) == call)
            }
            // Signed for a node: its genesis and a mortal era are committed to, and it is not the offline proof.
            let node = try DIDChain(metadata: metadata, genesisHash: [UInt8](repeating: 9, count: 32))
            let add = DIDCall(kind: .addAttribute, didAccount: key.publicKey, name: Array("n".utf8), value: Array("v".utf8), validFor: nil)
            let era = Era.mortal(period: 128, currentBlock: 1000)
            let mortal = try node.sign(add, keyPair: key, nonce: 0, mortality: .init(era: era, birthBlockHash: [UInt8](repeating: 1, count: 32)))
            let offline = try chain.sign(add, keyPair: key, nonce: 0)
            #expect(mortal.bytes != offline.bytes)
            #expect(throws: DIDProofError.self) { try chain.verify(mortal.bytes) }

            func attribute(name: String, value: String) throws -> [UInt8] {
                var encoder = SCALEEncoder()
                encoder.encodeBytes(Array(name.utf8))
                encoder.encodeBytes(Array(value.utf8))
                return encoder.bytes + withUnsafeBytes(of: UInt32.max.littleEndian, Array.init)
                    + withUnsafeBytes(of: UInt64(5).littleEndian, Array.init)
            }
            #expect(try DIDAnchorer.mismatch(add, stored: attribute(name: "n", value: "v"), metadata: metadata) == nil)
            #expect(try DIDAnchorer.mismatch(add, stored: attribute(name: "n", value: "w"), metadata: metadata) != nil)
            #expect(try DIDAnchorer.mismatch(add, stored: nil, metadata: metadata) != nil)
            var remove = add
            remove.kind = .removeAttribute
            #expect(try DIDAnchorer.mismatch(remove, stored: nil, metadata: metadata) == nil)
            #expect(try DIDAnchorer.mismatch(remove, stored: attribute(name: "n", value: "v"), metadata: metadata) != nil)
        }
    }
}
