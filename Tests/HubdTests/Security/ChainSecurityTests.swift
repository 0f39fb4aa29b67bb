import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

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
            let chains = try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM localchain_chains")?.int("n") }
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
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [entry]) {
            (hub: Hub, client: any TestClientProtocol) async throws in
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
            let viaRPC = try await api.call(chainID, "eth_sendRawTransaction", [Hex.encode(short.raw)])
            let rpcError = try #require(viaRPC["error"] as? [String: Any])
            #expect((rpcError["message"] as? String)?.contains("intrinsic gas too low") == true, "\(rpcError)")
            #expect(try await api.poolCount(chainID) == 0)
            #expect(try await api.account(chainID, alice)?.nonce == 0)

            func estimate(_ call: [String: Any]) async throws -> [String: Any] {
                try await api.call(chainID, "eth_estimateGas", [call])
            }
            let affordable = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x3e8"])
            #expect(affordable["result"] as? String == "0x5208")
            let tooMuch = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x3e9"])
            #expect((tooMuch["error"] as? [String: Any])?["message"] as? String == "insufficient funds for transfer", "\(tooMuch)")
            let capped = try await estimate(["from": alice.checksummed, "to": bob.checksummed, "value": "0x1", "gas": "0x4e20"])
            #expect(((capped["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("gas required exceeds allowance") == true, "\(capped)")
        }
    }

    static func eventTypes(_ api: LocalChainAPI, _ pattern: String) async throws -> [String] {
        let response = try await api.client.execute(uri: "/v1/events?type=\(pattern)&limit=1000", method: .get, headers: bearer("admin-1", "admin"))
        return (try response.json()["data"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
    }

    @Test("#1 a transaction the ledger refuses to mirror is dropped with its reason, and the chain goes on", arguments: TestBackend.enabled)
    func refusedMirrorDropsOneTransaction(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_011
            #expect(try await api.createChain(chainID).status == .created)
            let (alice, bob, carol) = (
                TestKeys.address(TestKeys.alice), TestKeys.address(TestKeys.bob), TestKeys.address([UInt8](repeating: 0xCA, count: 32))
            )
            #expect(try await api.grant(chainID, to: alice, amount: "1000").status == .accepted)
            #expect(try await api.grant(chainID, to: bob, amount: "500").status == .accepted)
            try await api.waitSealed(chainID)
            // The mirror and the chain disagree (what a rail bug would do): alice's mirror holds 100.
            let asset = try #require(try await hub.ledger.asset(LocalChainIDs.assetCode(chainID: chainID)))
            let drained = try await hub.ledger.submit(
                TransferRequest(
                    id: .random(),
                    action: .post(
                        debit: LocalChainIDs.ledgerAccount(chainID: chainID, address: alice),
                        credit: asset.issuanceAccountID,
                        amount: 900,
                        asset: asset.code
                    ),
                    reference: TransferReference(rail: "localchain", type: "test", id: "divergence")
                )
            )
            guard case .created = drained else {
                Issue.record("could not set up the divergence: \(drained)")
                return
            }
            let head = try await api.head(chainID)
            let fromAlice = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: carol, value: 500)
            let fromBob = try signedTransfer(TestKeys.bob, chainID: chainID, nonce: 0, to: carol, value: 200)
            #expect(try await api.send(chainID, raw: fromAlice.raw).status == .accepted)
            #expect(try await api.send(chainID, raw: fromBob.raw).status == .accepted)
            try await api.waitSealed(chainID)

            let aliceTx = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/transactions/\(Hex.encode(Keccak256.hash(fromAlice.raw)))",
                method: .get
            )
            #expect(aliceTx.object["status"] as? String == "dropped", "\(aliceTx.text)")
            #expect((aliceTx.object["reason"] as? String)?.contains("exceeds_credits") == true)
            let bobTx = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/transactions/\(Hex.encode(Keccak256.hash(fromBob.raw)))",
                method: .get
            )
            #expect(bobTx.object["status"] as? String == "success", "\(bobTx.text)")
            #expect(try await api.head(chainID) > head)
            #expect(try await api.account(chainID, carol)?.balance == 200)
            #expect(try await api.account(chainID, alice)?.nonce == 0)  // her nonce is free again
            #expect(try await Self.eventTypes(api, "localchain.transaction.dropped").count == 1)
        }
    }

    @Test(
        "#1 a chain that keeps failing to seal backs off, turns health degraded with an event, and pausing stops it",
        arguments: TestBackend.enabled
    )
    func persistentSealingFailure(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_012
            #expect(try await api.createChain(chainID).status == .created)
            let plugin = try #require(hub.plugins.running.first { $0.id == "localchain" }?.plugin as? LocalChainPlugin)
            #expect(await plugin.health().status == .ok)
            #expect(try await api.grant(chainID, to: TestKeys.address(TestKeys.alice), amount: "100").status == .accepted)
            try await api.waitSealed(chainID)
            // The validator key no longer opens: every block of this chain fails to seal.
            try await hub.database.write { connection in
                try connection.execute("UPDATE localchain_chains SET sealed_key = \([UInt8]([1, 2, 3])) WHERE chain_id = \(Int64(chainID))")
            }
            let payment = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: TestKeys.address(TestKeys.bob), value: 10)
            #expect(try await api.send(chainID, raw: payment.raw).status == .accepted)
            try await eventually("the rail to report the chain degraded", timeout: .seconds(20)) {
                await plugin.health().status == .degraded
            }
            #expect(await plugin.health().detail?.contains("chain \(chainID)") == true)
            // The event is appended right after the health changes.
            try await eventually("the degraded event", timeout: .seconds(10)) {
                try await Self.eventTypes(api, "localchain.chain.*").contains(LocalChainEvents.sealingDegraded)
            }
            // Backing off: a handful of attempts in a second, not one per 20 ms tick.
            let before = plugin.sealerHealth.failures(of: chainID)
            try await Task.sleep(for: .seconds(1))
            #expect(plugin.sealerHealth.failures(of: chainID) - before <= 4)

            // Paused, the chain is not tried at all.
            let pause = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/pause",
                method: .post,
                headers: bearer("org-1", "organiser")
            )
            #expect(pause.status == .ok)
            // An attempt begun before the pause may still end, slowly on a busy machine: wait
            // until the count has not moved for a second, then it must stay put.
            var paused = plugin.sealerHealth.failures(of: chainID)
            for _ in 0..<20 {
                try await Task.sleep(for: .seconds(1))
                let now = plugin.sealerHealth.failures(of: chainID)
                if now == paused { break }
                paused = now
            }
            try await Task.sleep(for: .seconds(3))
            #expect(plugin.sealerHealth.failures(of: chainID) == paused)
        }
    }

    @Test("#11 a grant or top-up retried with its id answers the first result; another body with it is refused", arguments: TestBackend.enabled)
    func grantsAndTopUpsAreIdempotentByID(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_111
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            func grant(_ body: [String: Any]) async throws -> TestResponse {
                try await api.client.execute(
                    uri: "/v1/rails/localchain/chains/\(chainID)/grants",
                    method: .post,
                    headers: bearer("org-1", "organiser") + jsonHeaders,
                    body: jsonBody(body)
                )
            }
            let first = try await grant(["id": "grant-1", "to": alice.checksummed, "amount": "700"])
            #expect(first.status == .accepted)
            let again = try await grant(["id": "grant-1", "to": alice.checksummed, "amount": "700"])
            #expect(again.status == .ok, "\(again.text)")
            #expect(again.object["hash"] as? String == first.object["hash"] as? String)
            let changed = try await grant(["id": "grant-1", "to": alice.checksummed, "amount": "701"])
            #expect(changed.status == .unprocessableContent)
            #expect(problemCode(changed) == "exists_with_different_fields")
            #expect(changed.object["field"] as? String == "amount")
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.balance == 700)

            let usd = try await hub.ledger.makeAsset("USD")
            let member = try await hub.ledger.makeWallet(usd, owner: uid("user-1"))
            let collection = try await hub.ledger.makeWallet(usd, owner: uid("org-1"))
            try await hub.ledger.mint(10_000, of: usd, to: member)
            let rate = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                method: .put,
                headers: bearer("org-1", "organiser") + jsonHeaders,
                body: jsonBody(["asset": "USD", "pay": "1", "receive": "100", "collection_account_id": collection.id.description])
            )
            #expect(rate.status == .ok)
            func topUp(_ amount: String) async throws -> TestResponse {
                try await api.client.execute(
                    uri: "/v1/rails/localchain/chains/\(chainID)/topups",
                    method: .post,
                    headers: bearer("user-1") + jsonHeaders,
                    body: jsonBody([
                        "id": "0e2c6a4e-2f0a-4b8e-9c59-2f4e1c1a7b10", "to": alice.checksummed, "amount": amount,
                        "from_account_id": member.id.description,
                    ])
                )
            }
            let bought = try await topUp("500")
            #expect(bought.status == .accepted, "\(bought.text)")
            let retried = try await topUp("500")
            #expect(retried.status == .accepted, "\(retried.text)")
            #expect(retried.object["hash"] as? String == bought.object["hash"] as? String)
            let other = try await topUp("600")
            #expect(other.status == .unprocessableContent)
            #expect(other.object["field"] as? String == "amount")
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.balance == 1_200)
            #expect(try await hub.ledger.balance(member).available == 9_995)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("#13 a key file open to others stops start-up and turns readiness down", arguments: TestBackend.enabled)
    func keyFilePermissions(backend: TestBackend) async throws {
        let keyFile = localChainKeyFile()
        let folder = (keyFile as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: keyFile, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o644]))
        do {
            try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [localChainEntry(keyFile: keyFile)]) {
                (_: Hub, _: any TestClientProtocol) async throws in
                Issue.record("the hub started with a world-readable key file")
            }
        } catch {
            // Start-up names the file, the plugin, the field and the fix.
            let message = "\(error)"
            #expect(message.contains("plugin 'localchain'") && message.contains("key_file") && message.contains("chmod 600"), "\(message)")
        }

        // Sound at start-up, opened up later: readiness says so (and names the fix).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [localChainEntry(keyFile: keyFile)]) {
            (_: Hub, client: any TestClientProtocol) async throws in
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
            let unready = try await client.execute(uri: "/readyz", method: .get)
            #expect(unready.status == .serviceUnavailable)
            #expect(unready.text.contains("chmod 600"), "\(unready.text)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
        }
    }

    @Test("#4 a top-up rate collects only into the organiser's own account that cannot go negative", arguments: TestBackend.enabled)
    func collectionAccount(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_200_004
            #expect(try await api.createChain(chainID).status == .created)
            let usd = try await hub.ledger.makeAsset("USD")
            let members = try await hub.ledger.makeWallet(usd, owner: uid("alice"))
            let own = try await hub.ledger.makeWallet(usd, owner: uid("org-1"))
            let issuance = try #require(try await hub.ledger.account(usd.issuanceAccountID))
            func setRate(_ account: Account) async throws -> TestResponse {
                try await api.client.execute(
                    uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                    method: .put,
                    headers: bearer("org-1", "organiser") + jsonHeaders,
                    body: jsonBody(["asset": "USD", "pay": "1", "receive": "1", "collection_account_id": account.id.description])
                )
            }
            let stranger = try await setRate(members)
            #expect(stranger.status == .unprocessableContent, "\(stranger.text)")
            #expect(problemCode(stranger) == "account_not_found")
            let negative = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                method: .put,
                headers: bearer("admin-1", "admin") + jsonHeaders,
                body: jsonBody(["asset": "USD", "pay": "1", "receive": "1", "collection_account_id": issuance.id.description])
            )
            #expect(negative.status == .unprocessableContent, "\(negative.text)")
            #expect(problemCode(negative) == "collection_account_may_go_negative")
            #expect(try await setRate(own).status == .ok)
        }
    }
}
