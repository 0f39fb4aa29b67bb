import ChainKit
import Foundation
import HubKernel
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain
@testable import hubd

/// Issue #12, the local chain: attacks on its money that succeeded before the fixes.
@Suite("security: local chain", .timeLimit(.minutes(3)))
struct ChainSecurityTests {
    @Test("#3 a cash-out pays the account the burn's sender authorised, whoever submits it", arguments: TestBackend.enabled)
    func cashOutPaysTheSigner(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_003
            let created = try await api.createChain(chainID)
            let validator = try EthereumAddress(try #require(try created.json()["validator"] as? String))
            let usd = try await hub.ledger.makeAsset("USD")
            let collection = try await hub.ledger.makeWallet(usd, owner: uid("org-1"))
            try await hub.ledger.mint(10_000, of: usd, to: collection)
            let bobWallet = try await hub.ledger.makeWallet(usd, owner: uid("bob"))
            let carolWallet = try await hub.ledger.makeWallet(usd, owner: uid("carol"))
            let rate = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                method: .put,
                headers: bearer("org-1", "organiser") + jsonHeaders,
                body: jsonBody(["asset": "USD", "pay": "1", "receive": "100", "collection_account_id": collection.id.description])
            )
            #expect(rate.status == .ok, "\(rate.text)")
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: bob, amount: "5000").status == .accepted)
            try await api.waitSealed(chainID)

            func cashOut(as user: String, _ body: [String: Any]) async throws -> TestResponse {
                try await api.client.execute(
                    uri: "/v1/rails/localchain/chains/\(chainID)/cashouts",
                    method: .post,
                    headers: bearer(user) + jsonHeaders,
                    body: jsonBody(body)
                )
            }
            // Bob signs a burn of 2000 (20.00 USD) and authorises his own wallet.
            let burn = try signedTransfer(TestKeys.bob, chainID: chainID, nonce: 0, to: validator, value: 2_000)
            let bobsConsent = try cashOutSignature(TestKeys.bob, chainID, burn, bobWallet.id)
            // Carol, holding a copy, submits it for her own wallet: with Bob's consent (which names
            // Bob's wallet), with her own key's signature, and with none.
            let carolsOwn = try cashOutSignature([UInt8](repeating: 0xC0, count: 32), chainID, burn, carolWallet.id)
            for signature in [bobsConsent, carolsOwn] {
                let stolen = try await cashOut(
                    as: "carol",
                    ["raw": Hex.encode(burn.raw), "payout_account_id": carolWallet.id.description, "payout_signature": signature]
                )
                #expect(stolen.status == .unprocessableContent, "\(stolen.text)")
                #expect(problemCode(stolen) == "payout_not_authorised")
            }
            let unsigned = try await cashOut(as: "carol", ["raw": Hex.encode(burn.raw), "payout_account_id": carolWallet.id.description])
            #expect(unsigned.status == .unprocessableContent || unsigned.status == .badRequest, "\(unsigned.text)")
            // Nothing was queued or held, and Carol got nothing.
            #expect(try await api.poolCount(chainID) == 0)
            #expect(try await hub.ledger.balance(collection).debitsPending == 0)
            #expect(try await hub.ledger.balance(carolWallet).available == 0)

            // Bob's own submission pays Bob.
            let paid = try await cashOut(
                as: "bob",
                ["raw": Hex.encode(burn.raw), "payout_account_id": bobWallet.id.description, "payout_signature": bobsConsent]
            )
            #expect(paid.status == .accepted, "\(paid.text)")
            try await api.waitSealed(chainID)
            #expect(try await hub.ledger.balance(bobWallet).available == 20)
            #expect(try await hub.ledger.balance(carolWallet).available == 0)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("#5 the chain id of a public network is refused unless the operator allows it", arguments: TestBackend.enabled)
    func publicChainIDs(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            for (id, symbol) in [(1, "ETH"), (11_155_111, "ETH"), (8_217, "KAIA"), (3_338, "PEAQ"), (42_161, "ETH")] as [(UInt64, String)] {
                let response = try await api.createChain(id, extra: ["symbol": symbol, "decimals": 18])
                #expect(response.status == .unprocessableContent, "\(id): \(response.text)")
                #expect(problemCode(response) == "public_chain_id")
                #expect(response.object["field"] as? String == "chain_id")
            }
            let chains = try await hub.database.read { try $0.queryFirst("SELECT count(*) FROM localchain_chains")?.int(0) }
            #expect(chains == 0)
            #expect(try await hub.ledger.asset(AssetCode("EVT-1")!) == nil)
            // Local development ids are nobody's network.
            #expect(try await api.createChain(31_337).status == .created)
        }
        // An operator's explicit override, for a private network on such an id.
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        let entry = PluginsFile.Entry(
            id: "localchain",
            enabled: true,
            configJSON: #"{"key_file": "\#(keyFile)", "allowed_public_chain_ids": [5]}"#,
            place: "plugins[0]"
        )
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [entry]) { (hub: Hub, client: any TestClientProtocol) async throws in
            let api = LocalChainAPI(client: client, database: hub.database)
            #expect(try await api.createChain(5).status == .created)
            #expect(try await api.createChain(1).status == .unprocessableContent)
        }
        // Allowing an id that is no public network's is a configuration mistake, named as such.
        #expect(throws: PluginConfigError.self) {
            try LocalChainConfiguration(PluginConfig(json: #"{"allowed_public_chain_ids": [424242]}"#))
        }
    }

    @Test("#6 gas is enforced: below the intrinsic 21000 is refused, estimates name the real failure", arguments: TestBackend.enabled)
    func gasIsEnforced(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_006
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "1000").status == .accepted)
            try await api.waitSealed(chainID)

            let short = try EthereumTransaction(envelope: .legacy, chainID: chainID, nonce: 0, gasLimit: 20_000, to: bob, value: UInt256(100))
                .signed(privateKey: TestKeys.alice)
            let refused = try await api.send(chainID, raw: short.raw)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(problemCode(refused) == "intrinsic_gas_too_low")
            let viaRPC = try await LocalChainRPCTests.call(api, chainID, "eth_sendRawTransaction", [Hex.encode(short.raw)])
            let rpcError = try #require(viaRPC["error"] as? [String: Any])
            #expect((rpcError["message"] as? String)?.contains("intrinsic gas too low") == true, "\(rpcError)")
            #expect(try await api.poolCount(chainID) == 0)
            #expect(try await api.account(chainID, alice)?.nonce == 0)

            func estimate(_ call: [String: Any]) async throws -> [String: Any] {
                try await LocalChainRPCTests.call(api, chainID, "eth_estimateGas", [call])
            }
            let affordable = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x3e8"])
            #expect(affordable["result"] as? String == "0x5208")
            let tooMuch = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x3e9"])
            #expect((tooMuch["error"] as? [String: Any])?["message"] as? String == "insufficient funds for transfer", "\(tooMuch)")
            let capped = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x1", "gas": "0x4e20"])
            #expect(((capped["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("gas required exceeds allowance") == true, "\(capped)")
        }
    }
}
