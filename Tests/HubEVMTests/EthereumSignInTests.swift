import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubEVM

extension EVMRailTests {
    /// Sign-In with Ethereum through the kernel's wallet sign-in: the hub's own EIP-4361 message, and
    /// a message the client composes around the hub's nonce, as SIWE libraries do.
    @Suite("EVM rail: Sign-In with Ethereum", .timeLimit(.minutes(4)))
    struct EthereumSignInTests {
        static let key = [UInt8](repeating: 0x5A, count: 32)
        static var address: EthereumAddress { try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: key)) }

        static func challenge(_ client: any TestClientProtocol) async throws -> (nonce: String, message: String) {
            let response = try await client.execute(
                uri: "/v1/auth/wallet/challenge",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["scheme": "siwe", "address": address.description])  // lower case: normalised
            )
            #expect(response.status == .created, "\(response.text)")
            return (try #require(response.object["nonce"] as? String), try #require(response.object["message"] as? String))
        }

        static func login(_ client: any TestClientProtocol, nonce: String?, message: String?, signing signed: String) async throws -> TestResponse {
            var body: [String: Any] = ["signature": Hex.encode(try PersonalSign.sign(Array(signed.utf8), privateKey: key))]
            if let nonce { body["nonce"] = nonce }
            if let message { body["message"] = message }
            return try await client.execute(uri: "/v1/auth/wallet/login", method: .post, headers: jsonHeaders, body: jsonBody(body))
        }

        @Test("the hub's message is EIP-4361 for the default chain; signed, it signs in once", arguments: TestBackend.enabled)
        func hubMessage(backend: TestBackend) async throws {
            try await withEVMHub(on: backend, realIdentity: true) { hub, client in
                let (nonce, message) = try await Self.challenge(client)
                let parsed = try SignInMessage.parse(message)
                #expect(parsed.accountKind == "Ethereum")
                #expect(parsed.address == Self.address.checksummed)
                #expect(parsed.domain == "localhost")
                #expect(parsed.uri == "http://localhost")
                #expect(parsed.chainID == String(EVMChainSettings.hostedDefault.chainID))
                #expect(parsed.nonce == nonce)
                #expect(parsed.expirationTime != nil)

                let signedIn = try await Self.login(client, nonce: nonce, message: nil, signing: message)
                #expect(signedIn.status == .created, "\(signedIn.text)")
                let replay = try await Self.login(client, nonce: nonce, message: nil, signing: message)
                #expect(replay.status == .unauthorized)
                #expect(replay.object["code"] as? String == "challenge_used")
            }
        }

        @Test(
            "a client's own message around the nonce is accepted; one that says anything else is refused and leaves the challenge open",
            arguments: TestBackend.enabled
        )
        func clientMessage(backend: TestBackend) async throws {
            try await withEVMHub(on: backend, realIdentity: true) { hub, client in
                let (nonce, hubText) = try await Self.challenge(client)
                let hubMessage = try SignInMessage.parse(hubText)
                func variant(_ change: (inout SignInMessage) -> Void) -> String {
                    var message = hubMessage
                    message.statement = "Sign in to the marketplace."
                    message.expirationTime = nil
                    change(&message)
                    return message.text
                }
                let now = LedgerTimestamp(nanoseconds: UInt64(Date().timeIntervalSince1970 * 1e9))
                let refusals: [(String, String)] = [
                    (variant { $0.domain = "evil.example" }, "message.domain"),
                    (variant { $0.chainID = "1" }, "message.chain_id"),
                    (
                        variant {
                            $0.address = try! EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: [UInt8](repeating: 9, count: 32)))
                                .checksummed
                        }, "message.address"
                    ),
                    (variant { $0.accountKind = "Solana" }, "message.account"),
                    (variant { $0.expirationTime = LedgerTimestamp(nanoseconds: now.nanoseconds - 1_000_000_000) }, "message.expiration_time"),
                    (variant { $0.notBefore = LedgerTimestamp(nanoseconds: now.nanoseconds + 3_600_000_000_000) }, "message.not_before"),
                ]
                for (text, field) in refusals {
                    let refused = try await Self.login(client, nonce: nil, message: text, signing: text)
                    #expect(refused.status == .unprocessableContent, "\(field): \(refused.text)")
                    #expect(refused.object["code"] as? String == "message_mismatch")
                    #expect(refused.object["field"] as? String == field)
                }
                let malformed = try await Self.login(client, nonce: nonce, message: "hello", signing: "hello")
                #expect(malformed.object["code"] as? String == "invalid_message")
                // The signature must be over the message sent.
                let good = variant { _ in }
                let mismatched = try await Self.login(client, nonce: nil, message: good, signing: hubText)
                #expect(mismatched.object["code"] as? String == "invalid_signature")

                let accepted = try await Self.login(client, nonce: nil, message: good, signing: good)
                #expect(accepted.status == .created, "\(accepted.text)")
                let replay = try await Self.login(client, nonce: nil, message: good, signing: good)
                #expect(replay.object["code"] as? String == "challenge_used")
            }
        }
    }
}
