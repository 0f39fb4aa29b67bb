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
    /// DataUnion's login (the Brainstem app's flow, `specs/rails.md` §4.5) on the kernel's wallet
    /// sign-in: register, get-nonce, sr25519 over the nonce's digits as hex without `0x`, login,
    /// refresh; the tokens work on the hub's own routes.
    @Suite("Substrate rail: DataUnion login surface", .timeLimit(.minutes(4)))
    struct DataUnionLoginTests {
        static let on = #"{"dataunion_compatible": true}"#

        @Test(
            "the app's flow: register → nonce → signed digits → tokens; the nonce is used up and re-rolled; refresh rotates",
            arguments: TestBackend.enabled
        )
        func appFlow(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: Self.on) { hub, client in
                let key = TestKey(seed: 41)
                let address = key.address()
                let registered = try await client.dataUnion(
                    .post,
                    "register",
                    ["public_address": address, "source": "brainstem", "referral_id": "", "wallet": "peaq"]
                )
                #expect(registered.status == .ok, "\(registered.text)")
                #expect(registered.object["status"] as? String == "success")
                let nonce = try #require(registered.object["nonce"] as? Int)
                #expect((100_000_000...9_999_999_999_999).contains(nonce))

                // Until used, the address keeps its nonce, as DataUnion's get-nonce answers it.
                let again = try await client.dataUnion(.get, "get-nonce?public_address=\(address)")
                #expect(again.object["nonce"] as? Int == nonce)
                #expect(again.object["status"] as? String == "not found")

                let signature = String(key.sign(String(nonce)).dropFirst(2))  // hex without 0x, as the app sends it
                let login = try await client.dataUnion(.post, "login", ["public_address": address, "source": "brainstem", "signature": signature])
                #expect(login.status == .ok, "\(login.text)")
                #expect(login.object["status"] as? String == "success")
                let access = try #require(login.object["access_token"] as? String)
                let refresh = try #require(login.object["refresh_token"] as? String)

                // The kernel's token: the hub's own routes take it.
                let me = try await client.execute(uri: "/v1/users/me", method: .get, headers: [.authorization: "Bearer \(access)"])
                #expect(me.status == .ok, "\(me.text)")

                // The same signature again: the nonce is used up.
                let replay = try await client.dataUnion(.post, "login", ["public_address": address, "signature": signature])
                #expect(replay.status == .unauthorized)
                #expect(replay.object["status"] as? String == "failed")

                // Registered now: register answers DataUnion's 400, get-nonce a new nonce.
                let twice = try await client.dataUnion(.post, "register", ["public_address": address, "wallet": "peaq"])
                #expect(twice.status == .badRequest)
                #expect(twice.object["message"] as? String == "already exists")
                let next = try await client.dataUnion(.get, "get-nonce?public_address=\(address)")
                #expect(next.object["status"] as? String == "exists")
                let nextNonce = try #require(next.object["nonce"] as? Int)
                #expect(nextNonce != nonce)
                let second = try await client.dataUnion(
                    .post,
                    "login",
                    ["public_address": address, "signature": key.sign("<Bytes>\(nextNonce)</Bytes>")]
                )
                #expect(second.status == .ok, "a <Bytes>-wrapped signature, with 0x: \(second.text)")

                // Refresh with the refresh token as the bearer: a new pair; the old one is used up.
                let refreshed = try await client.execute(
                    uri: "/v1/rails/substrate/dataunion/refresh",
                    method: .post,
                    headers: [.authorization: "Bearer \(refresh)"]
                )
                #expect(refreshed.status == .ok, "\(refreshed.text)")
                #expect(refreshed.object["access_token"] as? String != nil)
                #expect(refreshed.object["refresh_token"] as? String != refresh)
                let reused = try await client.execute(
                    uri: "/v1/rails/substrate/dataunion/refresh",
                    method: .post,
                    headers: [.authorization: "Bearer \(refresh)"]
                )
                #expect(reused.status == .unauthorized)
                #expect(reused.object["status"] as? String == "failed")
                // Elsewhere a refresh token is no credential.
                let asAccess = try await client.execute(uri: "/v1/users/me", method: .get, headers: [.authorization: "Bearer \(refresh)"])
                #expect(asAccess.status == .unauthorized)

                #expect(try await count("SELECT count(*) AS n FROM hub_users", in: hub) == 1)
                #expect(try await count("SELECT count(*) AS n FROM hub_wallet_links WHERE scheme = 'sr25519'", in: hub) == 1)
            }
        }

        @Test(
            "bad input: no address, a bad SS58 checksum, another wallet kind, a wrong or short signature, no nonce asked; nothing is created",
            arguments: TestBackend.enabled
        )
        func refusals(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend, config: Self.on) { hub, client in
                let key = TestKey(seed: 42)
                let address = key.address()
                var broken = Array(address.utf8)
                broken[broken.count - 1] = broken.last == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")

                let missing = try await client.dataUnion(.post, "register", ["source": "brainstem"])
                #expect(missing.status == .badRequest)
                #expect(missing.object["message"] as? String == "public_address required")
                let checksum = try await client.dataUnion(.post, "register", ["public_address": String(decoding: broken, as: UTF8.self)])
                #expect(checksum.status == .badRequest)
                #expect(checksum.object["status"] as? String == "failed")
                let otherWallet = try await client.dataUnion(.post, "register", ["public_address": address, "wallet": "metamask"])
                #expect(otherWallet.status == .badRequest)
                let notJSON = try await client.execute(
                    uri: "/v1/rails/substrate/dataunion/login",
                    method: .post,
                    headers: jsonHeaders,
                    body: ByteBuffer(string: "{")
                )
                #expect(notJSON.status == .badRequest)
                #expect(notJSON.object["message"] as? String == "invalid json")
                let noNonce = try await client.dataUnion(
                    .post,
                    "login",
                    ["public_address": address, "signature": String(repeating: "ab", count: 64)]
                )
                #expect(noNonce.status == .unauthorized, "\(noNonce.text)")

                let nonce = try #require(try await client.dataUnion(.get, "get-nonce?public_address=\(address)").object["nonce"] as? Int)
                let short = try await client.dataUnion(.post, "login", ["public_address": address, "signature": "abcd"])
                #expect(short.status == .badRequest)
                let stranger = TestKey(seed: 43)
                let wrong = try await client.dataUnion(.post, "login", ["public_address": address, "signature": stranger.sign(String(nonce))])
                #expect(wrong.status == .unauthorized)
                #expect(wrong.object["status"] as? String == "failed")
                let otherNumber = try await client.dataUnion(.post, "login", ["public_address": address, "signature": key.sign(String(nonce + 1))])
                #expect(otherNumber.status == .unauthorized)
                #expect(try await count("SELECT count(*) AS n FROM hub_users", in: hub) == 0)

                // The refusals left the nonce open: the right signature still signs in.
                let right = try await client.dataUnion(.post, "login", ["public_address": address, "signature": key.sign(String(nonce))])
                #expect(right.status == .ok, "\(right.text)")
            }
        }

        @Test("off by default: the routes do not exist")
        func offByDefault() async throws {
            try await withSubstrateHub(on: .sqlite) { _, client in
                let response = try await client.dataUnion(.get, "get-nonce?public_address=\(TestKey(seed: 44).address())")
                #expect(response.status == .notFound)
            }
        }
    }
}

extension TestClientProtocol {
    func dataUnion(_ method: HTTPRequest.Method, _ path: String, _ body: [String: Any]? = nil) async throws -> TestResponse {
        try await execute(
            uri: "/v1/rails/substrate/dataunion/" + path,
            method: method,
            headers: body == nil ? [:] : jsonHeaders,
            body: body.map(jsonBody)
        )
    }
}
