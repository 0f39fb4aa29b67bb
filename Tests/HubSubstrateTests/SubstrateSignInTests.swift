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
    /// Sign-in with Substrate wallets through the kernel's wallet sign-in: schemes `sr25519` and
    /// `ed25519` registered by the rail, signatures made here with ChainKit keys.
    @Suite("Substrate rail: wallet sign-in", .timeLimit(.minutes(4)))
    struct SubstrateSignInTests {
        @Test(
            "sr25519 and ed25519, raw and <Bytes>-wrapped: the message names a Substrate account on the chain; signed, it signs in once",
            arguments: TestBackend.enabled
        )
        func signIn(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend) { hub, client in
                for (index, algorithm) in SubstrateSignatureVerifier.Algorithm.allCases.enumerated() {
                    for wrapped in [false, true] {
                        let key = TestKey(algorithm, seed: UInt8(10 + 2 * index + (wrapped ? 1 : 0)))
                        // A Polkadot (prefix 0) address is answered in the rail's prefix, 42.
                        let (nonce, message) = try await client.openChallenge(key)
                        let parsed = try SignInMessage.parse(message)
                        #expect(parsed.accountKind == "Substrate")
                        #expect(parsed.chainID == "peaq")
                        #expect(parsed.address == key.address(prefix: 42))
                        #expect(parsed.nonce == nonce)

                        let signedIn = try await client.walletLogin(nonce: nonce, signature: key.sign(message, wrapped: wrapped))
                        #expect(signedIn.status == .created, "\(algorithm) wrapped=\(wrapped): \(signedIn.text)")
                        let user = try #require(signedIn.object["user"] as? [String: Any])
                        #expect((user["display_name"] as? String)?.hasPrefix("\(key.scheme) ") == true)

                        let replay = try await client.walletLogin(nonce: nonce, signature: key.sign(message, wrapped: wrapped))
                        #expect(replay.status == .unauthorized)
                        #expect(replay.object["code"] as? String == "challenge_used")

                        // Again, by the 0x public key: the same user, not a new one.
                        let hexChallenge = try await client.challenge(key, address: "0x" + HexText.encode(key.publicKey))
                        #expect(hexChallenge.object["address"] as? String == key.address())
                        let again = try await client.walletLogin(
                            nonce: try #require(hexChallenge.object["nonce"] as? String),
                            signature: key.sign(try #require(hexChallenge.object["message"] as? String), wrapped: wrapped)
                        )
                        #expect(again.status == .ok, "\(again.text)")
                    }
                }
                #expect(try await count("SELECT count(*) AS n FROM hub_users", in: hub) == 4)
            }
        }

        @Test("the configured prefix and chain are what messages and addresses say")
        func configuredPrefix() async throws {
            try await withSubstrateHub(on: .sqlite, config: #"{"ss58_prefix": 1221, "chain": "polkadot:d2a620c27ec5cbc5621ff9a522689895"}"#) {
                _,
                client in
                let key = TestKey(seed: 3)
                let (_, message) = try await client.openChallenge(key)
                let parsed = try SignInMessage.parse(message)
                #expect(parsed.address == key.address(prefix: 1221))
                #expect(parsed.chainID == "polkadot:d2a620c27ec5cbc5621ff9a522689895")
            }
        }

        @Test(
            "bad input: a bad SS58 checksum, a wrong signature, the other scheme's signature; the challenge stays open and nobody is created",
            arguments: TestBackend.enabled
        )
        func refusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend) { hub, client in
                let key = TestKey(seed: 7)
                var address = Array(key.address().utf8)
                address[address.count - 1] = address.last == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                let badChecksum = try await client.challenge(key, address: String(decoding: address, as: UTF8.self))
                #expect(badChecksum.status == .unprocessableContent)
                #expect(badChecksum.object["code"] as? String == "invalid_address")
                let short = try await client.challenge(key, address: "0x1234")
                #expect(short.object["code"] as? String == "invalid_address")

                let (nonce, message) = try await client.openChallenge(key)
                let other = TestKey(seed: 8)
                for signature in [other.sign(message), key.sign(message + " "), TestKey(.ed25519, seed: 7).sign(message), "0x00"] {
                    let refused = try await client.walletLogin(nonce: nonce, signature: signature)
                    #expect(refused.status == .unauthorized, "\(refused.text)")
                    #expect(refused.object["code"] as? String == "invalid_signature")
                }
                #expect(try await count("SELECT count(*) AS n FROM hub_users", in: hub) == 0)
                let accepted = try await client.walletLogin(nonce: nonce, signature: key.sign(message))
                #expect(accepted.status == .created, "\(accepted.text)")
            }
        }

        @Test("an expired challenge is refused and creates nobody", arguments: TestBackend.enabled)
        func expiry(backend: TestBackend) async throws {
            let clock = ManualClock(start: UInt64(Date().timeIntervalSince1970 * 1e9))
            try await withSubstrateHub(on: backend, clock: clock.ledgerClock) { hub, client in
                let key = TestKey(.ed25519, seed: 9)
                let (nonce, message) = try await client.openChallenge(key)
                clock.advance(seconds: 301)
                let expired = try await client.walletLogin(nonce: nonce, signature: key.sign(message))
                #expect(expired.status == .unauthorized)
                #expect(expired.object["code"] as? String == "challenge_expired")
                #expect(try await count("SELECT count(*) AS n FROM hub_users", in: hub) == 0)
            }
        }
    }
}
