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
    /// Prepare and submit: a user signed in with their own Ethereum wallet is handed each
    /// transaction to sign, and the hub relays and tracks the signed bytes.
    @Suite("EVM rail: a user's own wallet (prepare and submit)", .timeLimit(.minutes(4)))
    struct SelfCustodyTests {
        static let key = EthereumSignInTests.key
        static var wallet: EthereumAddress { EthereumSignInTests.address }

        /// Signs in with the wallet (Sign-In with Ethereum); returns the access token.
        static func signIn(_ client: any TestClientProtocol) async throws -> String {
            let (nonce, message) = try await EthereumSignInTests.challenge(client)
            let signedIn = try await EthereumSignInTests.login(client, nonce: nonce, message: nil, signing: message)
            #expect(signedIn.status == .created, "\(signedIn.text)")
            return try #require(signedIn.object["access_token"] as? String)
        }

        /// Signs in with another wallet, `key`'s; returns the access token.
        static func signIn(_ client: any TestClientProtocol, key: [UInt8]) async throws -> String {
            let address = try EthereumAddress(publicKey: try Secp256k1.publicKey(privateKey: key))
            let challenge = try await client.execute(
                uri: "/v1/auth/wallet/challenge",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["scheme": "siwe", "address": address.checksummed])
            )
            let message = try #require(challenge.object["message"] as? String, "\(challenge.text)")
            let signature = Hex.encode(try PersonalSign.sign(Array(message.utf8), privateKey: key))
            let body: [String: Any] = ["nonce": try #require(challenge.object["nonce"] as? String), "signature": signature]
            let signedIn = try await client.execute(uri: "/v1/auth/wallet/login", method: .post, headers: jsonHeaders, body: jsonBody(body))
            return try #require(signedIn.object["access_token"] as? String, "\(signedIn.text)")
        }

        static func call(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, token: String, _ body: Any? = nil)
            async throws -> TestResponse
        {
            var headers: HTTPFields = [.authorization: "Bearer \(token)"]
            if body != nil { headers = headers + jsonHeaders }
            return try await client.execute(uri: "/v1/rails/evm" + path, method: method, headers: headers, body: body.map(jsonBody))
        }

        static func uint256(_ quantity: Any?) throws -> UInt256 {
            let text = try #require(quantity as? String)
            let digits = String(text.dropFirst(2))
            return try UInt256(bigEndian: try Hex.decode("0x" + (digits.count % 2 == 1 ? "0" : "") + digits))
        }

        /// The prepared transaction, signed by `key` after `change`.
        static func sign(_ prepared: [String: Any], with key: [UInt8], _ change: (inout EthereumTransaction) -> Void = { _ in }) throws -> String {
            let fields = try #require(prepared["transaction"] as? [String: Any])
            var transaction = EthereumTransaction(
                envelope: .legacy,
                chainID: UInt64(try uint256(fields["chainId"]).low),
                nonce: UInt64(try uint256(fields["nonce"]).low),
                gasPrice: try uint256(fields["gasPrice"]),
                gasLimit: UInt64(try uint256(fields["gas"]).low),
                to: try (fields["to"] as? String).map(EthereumAddress.init),
                value: try uint256(fields["value"]),
                data: try Hex.decode(try #require(fields["data"] as? String))
            )
            change(&transaction)
            return Hex.encode(try transaction.signed(privateKey: key).raw)
        }

        /// Submits `raw` for `prepared` and waits for its operation to settle.
        static func submit(_ client: any TestClientProtocol, _ prepared: [String: Any], raw: String, token: String) async throws -> [String: Any] {
            let id = try #require(prepared["id"] as? String)
            let sent = try await call(client, .post, "/transactions", token: token, ["prepared_id": id, "raw": raw])
            #expect(sent.status == .accepted, "\(sent.text)")
            let operation = try #require(sent.object["id"] as? String)
            for _ in 0..<300 {
                let settled = try await call(client, .get, "/operations/\(operation)", token: token).object
                if settled["state"] as? String != "pending" { return settled }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("operation \(operation) stayed pending")
            return [:]
        }

        @Test(
            "a wallet user's mint and listing are prepared for their wallet, checked when submitted, relayed and tracked",
            arguments: TestBackend.enabled
        )
        func prepareAndSubmit(backend: TestBackend) async throws {
            try await withEVMHub(on: backend, realIdentity: true) { hub, client in
                let token = try await Self.signIn(client)
                for _ in 0..<200 {
                    let chains = try await Self.call(client, .get, "/chains", token: token).object["data"] as? [[String: Any]] ?? []
                    if chains.first?["status"] as? String == "ready" { break }
                    try await Task.sleep(for: .milliseconds(100))
                }

                let preparedMint = try await Self.call(client, .post, "/items", token: token, ["title": "Own vase", "category": "ceramics"])
                #expect(preparedMint.status == .ok, "\(preparedMint.text)")
                let mint = preparedMint.object
                #expect(mint["kind"] as? String == "mint")
                #expect((mint["transaction"] as? [String: Any])?["from"] as? String == Self.wallet.checksummed)
                #expect(
                    try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_accounts")?.int("n") } == 0,
                    "no custodial key"
                )

                // What is submitted must be what was prepared, signed by the wallet that signed in.
                let tampered = try Self.sign(mint, with: Self.key) { $0.data[$0.data.count - 1] ^= 1 }
                let refusedData = try await Self.call(client, .post, "/transactions", token: token, ["prepared_id": mint["id"]!, "raw": tampered])
                #expect(refusedData.object["code"] as? String == "transaction_mismatch", "\(refusedData.text)")
                let stranger = try Self.sign(mint, with: [UInt8](repeating: 0x42, count: 32))
                let refusedKey = try await Self.call(client, .post, "/transactions", token: token, ["prepared_id": mint["id"]!, "raw": stranger])
                #expect(refusedKey.object["code"] as? String == "transaction_mismatch", "\(refusedKey.text)")
                let unknown = try await Self.call(client, .post, "/transactions", token: token, ["prepared_id": "nope", "raw": stranger])
                #expect(unknown.status == .notFound)
                let garbage = try await Self.call(client, .post, "/transactions", token: token, ["prepared_id": mint["id"]!, "raw": "0x1234"])
                #expect(garbage.object["field"] as? String == "raw")
                // A prepared transaction is its preparer's alone: another user, even with the
                // owner's correctly signed bytes, finds no such transaction.
                let raw = try Self.sign(mint, with: Self.key)
                let otherUser = try await Self.signIn(client, key: [UInt8](repeating: 0x43, count: 32))
                let foreign = try await Self.call(client, .post, "/transactions", token: otherUser, ["prepared_id": mint["id"]!, "raw": raw])
                #expect(foreign.status == .notFound, "\(foreign.text)")
                #expect(
                    try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations WHERE kind = 'mint'")?.int("n") } == 0
                )

                let minted = try await Self.submit(client, mint, raw: raw, token: token)
                #expect(minted["state"] as? String == "confirmed", "\(minted)")
                let again = try await Self.call(client, .post, "/transactions", token: token, ["prepared_id": mint["id"]!, "raw": raw])
                #expect(again.object["id"] as? String == minted["id"] as? String, "the same bytes answer the same operation")
                let tokenID = try #require((minted["result"] as? [String: String])?["token_id"])
                let item = try await Self.call(client, .get, "/items/hub/\(tokenID)", token: token).object
                #expect((item["item"] as? [String: Any])?["owner"] as? String == Self.wallet.checksummed)

                // Listing: the wallet first approves the marketplace, then lists.
                let listing: [String: Any] = ["kind": "sale", "token_id": Int(tokenID) ?? 0, "price": ListingTests.coin]
                let approval = try await Self.call(client, .post, "/listings", token: token, listing).object
                #expect(approval["kind"] as? String == "approve", "\(approval)")
                #expect(
                    try await Self.submit(client, approval, raw: try Self.sign(approval, with: Self.key), token: token)["state"] as? String
                        == "confirmed"
                )
                let create = try await Self.call(client, .post, "/listings", token: token, listing).object
                #expect(create["kind"] as? String == "listing.create", "\(create)")
                let listed = try await Self.submit(client, create, raw: try Self.sign(create, with: Self.key), token: token)
                #expect(listed["state"] as? String == "confirmed", "\(listed)")
                let listingID = try #require((listed["result"] as? [String: String])?["listing_id"])
                let shown = try await Self.call(client, .get, "/listings/hub/\(listingID)", token: token).object
                #expect(shown["seller"] as? String == Self.wallet.checksummed)
                #expect(shown["state"] as? String == "open")
            }
        }
    }
}
