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
    /// `/v1/rails/substrate/wallets`: custodial wallets (mnemonic shown once, secret sealed) and
    /// external ones proven by a signed challenge; one key, one user.
    @Suite("Substrate rail: wallets", .timeLimit(.minutes(4)))
    struct SubstrateWalletTests {
        static let walletCount: SQL = "SELECT count(*) AS n FROM substrate_wallets"

        @Test(
            "a custodial wallet: 12 words shown once (no-store, never replayed), the key they derive, the secret sealed at rest",
            arguments: TestBackend.enabled
        )
        func custodial(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let created = try await client.substrate(.post, "/wallets", token: token, ["kind": "custodial"], headers: [.idempotencyKey: "make-1"])
                #expect(created.status == .created, "\(created.text)")
                #expect(created.headers[.cacheControl] == "no-store")
                let mnemonic = try #require(created.object["mnemonic"] as? String)
                #expect(mnemonic.split(separator: " ").count == 12)
                let address = try #require(created.object["address"] as? String)
                // The words are the wallet's: Substrate's derivation gives its public key and address.
                let key = try TestKey(mnemonic: mnemonic)
                #expect(address == key.address(prefix: 42))
                #expect(created.object["public_key"] as? String == "0x" + HexText.encode(key.publicKey))
                #expect(created.object["kind"] as? String == "custodial")
                #expect(created.object["scheme"] as? String == "sr25519")

                // Linked to its creator at once: signing in with its key is signing in as them.
                let (nonce, message) = try await client.openChallenge(key)
                let viaWallet = try await client.walletLogin(nonce: nonce, signature: key.sign(message))
                #expect(viaWallet.status == .ok, "an existing user, not a new one: \(viaWallet.text)")
                let me = try await client.execute(uri: "/v1/users/me", method: .get, headers: [.authorization: "Bearer \(token)"])
                let creator = me.object["id"] as? String
                #expect(creator != nil && (viaWallet.object["user"] as? [String: Any])?["id"] as? String == creator)

                // Never shown again: not by the list, not by the wallet, not by a retry with the key.
                let list = try await client.substrate(.get, "/wallets", token: token)
                #expect(list.status == .ok)
                #expect(!list.text.contains(mnemonic.split(separator: " ")[0] + " " + mnemonic.split(separator: " ")[1]))
                let rows = try #require(list.object["data"] as? [[String: Any]])
                #expect(rows.map { $0["address"] as? String } == [address])
                #expect(rows.allSatisfy { $0["mnemonic"] == nil })
                let one = try await client.substrate(.get, "/wallets/\(key.address(prefix: 0))", token: token)
                #expect(one.status == .ok, "\(one.text)")
                #expect(one.object["address"] as? String == address)
                #expect(one.object["mnemonic"] == nil)
                let retry = try await client.substrate(.post, "/wallets", token: token, ["kind": "custodial"], headers: [.idempotencyKey: "make-1"])
                #expect(retry.headers[.idempotencyReplayed] == nil)
                #expect(retry.object["mnemonic"] as? String != mnemonic)

                // At rest: the sealed entropy, not the words nor the entropy in the clear.
                let entropy = try BIP39.entropy(fromMnemonic: mnemonic)
                let sealed = try await hub.database.read { connection in
                    try connection.queryFirst("SELECT sealed_secret FROM substrate_wallets WHERE public_key = \(key.publicKey)")?.bytes(
                        "sealed_secret"
                    )
                }
                let stored = try #require(sealed)
                #expect(stored.count > entropy.count)
                #expect(!contains(stored, entropy))
                #expect(!contains(stored, Array(mnemonic.utf8.prefix(16))))
                #expect(try await events(SubstrateEvents.walletCreated, in: hub) == 2)

                // It opens under the rail's data key, for this wallet only.
                let secrets = WalletSecrets(opening: hub.secrets.railSecrets(for: SubstratePlugin.id))
                #expect(try secrets.open(stored, publicKey: key.publicKey, address: address) == entropy)
                #expect(throws: SubstrateError.self) { try secrets.open(stored, publicKey: TestKey(seed: 1).publicKey, address: address) }

                // And it signs in with the words, like any wallet.
                _ = try await client.signIn(key)

                let unknownMember = try await client.substrate(.post, "/wallets", token: token, ["kind": "custodial", "address": address])
                #expect(unknownMember.status == .unprocessableContent)
            }
        }

        @Test(
            "an external wallet: registered with a signed challenge (raw or <Bytes>), listed, once per key; another user's is 409",
            arguments: TestBackend.enabled
        )
        func external(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend) { hub, client in
                let alice = try await client.signIn(TestKey(seed: 1))
                let bob = try await client.signIn(TestKey(.ed25519, seed: 2))
                let aliceWallet = TestKey(seed: 21)
                let aliceEd = TestKey(.ed25519, seed: 22)

                let registered = try await client.registerExternal(aliceWallet, token: alice, wrapped: true)
                #expect(registered.status == .created, "\(registered.text)")
                #expect(registered.object["kind"] as? String == "external")
                #expect(registered.object["address"] as? String == aliceWallet.address())
                #expect(registered.headers[.cacheControl] == nil)
                let ed = try await client.registerExternal(aliceEd, token: alice)
                #expect(ed.status == .created, "\(ed.text)")
                #expect(ed.object["scheme"] as? String == "ed25519")
                let again = try await client.registerExternal(aliceWallet, token: alice)
                #expect(again.status == .ok, "\(again.text)")
                #expect(try await events(SubstrateEvents.walletRegistered, in: hub) == 2)
                #expect(try await count(Self.walletCount, in: hub) == 2)
                let sealed = try await count("SELECT count(*) AS n FROM substrate_wallets WHERE sealed_secret IS NOT NULL", in: hub)
                #expect(sealed == 0)

                // Bob holds Alice's key too (say she leaked it): still hers. The challenge stays open.
                let (nonce, message) = try await client.openChallenge(aliceWallet)
                let taken = try await client.substrate(
                    .post,
                    "/wallets",
                    token: bob,
                    ["kind": "external", "address": aliceWallet.address(), "nonce": nonce, "signature": aliceWallet.sign(message)]
                )
                #expect(taken.status == .conflict, "\(taken.text)")
                #expect(taken.object["code"] as? String == "wallet_taken")
                #expect(try await hub.identity.wallets.openChallenge(nonce: nonce) != nil)
                // Alice's wallet is not Bob's to see.
                let hidden = try await client.substrate(.get, "/wallets/\(aliceWallet.address())", token: bob)
                #expect(hidden.status == .notFound)
                let bobs = try await client.substrate(.get, "/wallets", token: bob)
                #expect((bobs.object["data"] as? [Any])?.isEmpty == true)

                // Alice's custodial wallet, whose words Bob learnt: also hers.
                let custodial = try await client.substrate(.post, "/wallets", token: alice, ["kind": "custodial"])
                let custodialKey = try TestKey(mnemonic: try #require(custodial.object["mnemonic"] as? String))
                let stolen = try await client.registerExternal(custodialKey, token: bob)
                #expect(stolen.status == .conflict)
                #expect(stolen.object["code"] as? String == "wallet_taken")
                #expect(try await events(SubstrateEvents.walletRegistered, in: hub) == 2)
                #expect(try await count(Self.walletCount, in: hub) == 3)
            }
        }

        @Test(
            "bad input to registration: bad SS58 checksum, wrong signature, another address's challenge, a replayed or expired nonce; nothing changes",
            arguments: TestBackend.enabled
        )
        func externalRefusals(backend: TestBackend) async throws {
            let clock = ManualClock(start: UInt64(Date().timeIntervalSince1970 * 1e9))
            try await withSubstrateHub(on: backend, clock: clock.ledgerClock) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let wallet = TestKey(seed: 31)
                let (nonce, message) = try await client.openChallenge(wallet)
                func register(_ fields: [String: String]) async throws -> TestResponse {
                    var body = ["kind": "external", "address": wallet.address(), "nonce": nonce, "signature": wallet.sign(message)]
                    body.merge(fields) { $1 }
                    return try await client.substrate(.post, "/wallets", token: token, body)
                }
                var badAddress = Array(wallet.address().utf8)
                badAddress[5] = badAddress[5] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
                let cases: [([String: String], HTTPResponse.Status, String)] = [
                    (["address": String(decoding: badAddress, as: UTF8.self)], .unprocessableContent, "invalid_address"),
                    (["address": TestKey(seed: 32).address()], .unprocessableContent, "address_mismatch"),
                    (["signature": TestKey(seed: 32).sign(message)], .unauthorized, "invalid_signature"),
                    (["signature": wallet.sign("another text")], .unauthorized, "invalid_signature"),
                    (["signature": "not hex"], .unprocessableContent, "invalid_field"),
                    (["nonce": "00112233445566778899aabbccddeeff"], .unauthorized, "challenge_unknown"),
                ]
                for (fields, status, code) in cases {
                    let refused = try await register(fields)
                    #expect(refused.status == status, "\(fields): \(refused.text)")
                    #expect(refused.object["code"] as? String == code, "\(fields): \(refused.text)")
                }
                #expect(try await count(Self.walletCount, in: hub) == 0)
                #expect(try await events(SubstrateEvents.walletRegistered, in: hub) == 0)

                // The challenge was left open by every refusal: answered now, then never again.
                let accepted = try await register([:])
                #expect(accepted.status == .created, "\(accepted.text)")
                let replayed = try await register([:])
                #expect(replayed.status == .unauthorized)
                #expect(replayed.object["code"] as? String == "challenge_used")

                let other = TestKey(.ed25519, seed: 33)
                let (late, lateMessage) = try await client.openChallenge(other)
                clock.advance(seconds: 301)
                let expired = try await client.substrate(
                    .post,
                    "/wallets",
                    token: token,
                    ["kind": "external", "address": other.address(), "nonce": late, "signature": other.sign(lateMessage)]
                )
                #expect(expired.status == .unauthorized, "\(expired.text)")
                #expect(expired.object["code"] as? String == "challenge_expired")
                #expect(try await count(Self.walletCount, in: hub) == 1)
                #expect(try await events(SubstrateEvents.walletRegistered, in: hub) == 1)
            }
        }

        @Test("the rail is mounted with its migrations, healthy, and refuses a bad config naming the field")
        func plugin() async throws {
            try await withSubstrateHub(on: .sqlite) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))
                let plugins = try await client.execute(uri: "/v1/plugins", method: .get, headers: [.authorization: "Bearer \(token)"])
                #expect(plugins.text.contains("\"substrate\""), "\(plugins.text)")
                #expect(PluginID.isValid(SubstratePlugin.id))
            }
            for (config, field) in [(#"{"ss58_prefix": 46}"#, "ss58_prefix"), (#"{"chain": "a b"}"#, "chain"), (#"{"prefix": 42}"#, "prefix")] {
                #expect(throws: (any Error).self, "\(field)") {
                    _ = try SubstrateConfiguration(PluginConfig(json: config))
                }
            }
            #expect(try SubstrateConfiguration(PluginConfig(json: "{}")) == SubstrateConfiguration())
        }
    }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
}
