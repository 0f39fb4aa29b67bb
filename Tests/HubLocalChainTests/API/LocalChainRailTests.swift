import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import HubLocalChain

@Suite("local chain rail", .timeLimit(.minutes(3)))
struct LocalChainRailTests {
    @Test("a chain is created with a sealed validator key and a signed genesis recording the event", arguments: TestBackend.enabled)
    func createChain(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let created = try await api.createChain(4_201, extra: ["host": ["latitude": "52.3702", "longitude": "4.8952", "radius_meters": 500]])
            #expect(created.status == .created)
            let body = try created.json()
            #expect(body["chain_id"] as? Int == 4_201)
            #expect(body["asset"] as? String == "EVT-4201")
            #expect(body["status"] as? String == "active")
            let validator = try EthereumAddress(try #require(body["validator"] as? String))

            let chain = try #require(try await hub.database.read { try LocalChainStore.chain(4_201, on: $0) })
            // The key at rest is sealed, not the raw 32 bytes, and opens only for this chain.
            #expect(chain.sealedKey.count == 24 + 32 + 16)
            let stored = try #require(try await hub.database.read { try LocalChainStore.block(chainID: 4_201, number: 0, on: $0) })
            let genesis = try stored.decoded()
            try genesis.verifyContents(validator: validator)
            #expect(genesis.header.header.chainID == 4_201)
            #expect(genesis.header.header.extraData.count == 32)  // what Ethereum clients accept
            let extra = try RLP.decode(try #require(genesis.genesisRecord)).list("record")
            #expect(try extra[1].bytes("name") == Array("Summer Fest".utf8))
            #expect(try extra[5].bytes("latitude") == Array("52.3702".utf8))
            #expect(Hex.encode(genesis.hash) == body["genesis_hash"] as? String)

            let asset = try #require(try await hub.ledger.asset(AssetCode("EVT-4201")!))
            #expect(asset.scale == 2)
            #expect(asset.organiserID == uid("org-1"))

            let again = try await api.createChain(4_201)
            #expect(again.status == .conflict)
            #expect(try again.json()["code"] as? String == "chain_id_taken")
            let member = try await api.createChain(4_202, as: "user-1", role: "member")
            #expect(member.status == .forbidden)
            let bad = try await api.createChain(0)
            #expect(bad.status == .unprocessableContent)
            #expect(try bad.json()["field"] as? String == "chain_id")
        }
    }

    @Test("grants and signed transfers are sealed into signed blocks and mirrored in the ledger", arguments: TestBackend.enabled)
    func grantAndPay(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_300
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            let carol = try EthereumAddress("0x00000000000000000000000000000000000ca201")

            let grant = try await api.grant(chainID, to: alice, amount: "1000")
            #expect(grant.status == .accepted)
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.balance == 1000)

            let legacy = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 300)
            let dynamic = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: carol, value: 200, envelope: .dynamicFee)
            let first = try await api.send(chainID, raw: legacy.raw)
            #expect(first.status == .accepted)
            #expect(try first.json()["hash"] as? String == Hex.encode(legacy.hash))
            #expect(try await api.send(chainID, raw: dynamic.raw).status == .accepted)
            try await api.waitSealed(chainID)

            #expect(try await api.account(chainID, alice)?.balance == 500)
            #expect(try await api.account(chainID, alice)?.nonce == 2)
            #expect(try await api.account(chainID, bob)?.balance == 300)
            #expect(try await api.account(chainID, carol)?.balance == 200)

            // Every chain balance equals its ledger account; the issuance account holds -1000.
            let asset = try #require(try await hub.ledger.asset(AssetCode("EVT-\(chainID)")!))
            for address in [alice, bob, carol] {
                let account = try #require(try await api.account(chainID, address))
                let ledgerAccount = try #require(try await hub.ledger.account(account.ledgerAccountID))
                #expect(ledgerAccount.available == account.balance)
            }
            #expect(try await hub.ledger.account(asset.issuanceAccountID)?.debitsPosted == 1000)
            let mirrored = try #require(try await hub.ledger.transfer(LocalChainIDs.transfer(transactionHash: legacy.hash)))
            #expect(mirrored.amount == 300)
            #expect(mirrored.reference == TransferReference(rail: "localchain", type: "transaction", id: Hex.encode(legacy.hash)))
            try await hub.ledger.expectVerified()

            // Each stored block decompresses, links to its parent, is signed by the validator and its
            // state root commits to the state at that point; the last one to the current state.
            let chain = try #require(try await hub.database.read { try LocalChainStore.chain(chainID, on: $0) })
            var parent = chain.genesisHash
            for number in 1...chain.headNumber {
                let stored = try #require(try await hub.database.read { try LocalChainStore.block(chainID: chainID, number: number, on: $0) })
                let block = try stored.decoded()
                try block.verifyContents(validator: chain.validator)
                #expect(Hex.encode(block.header.header.parentHash) == parent)
                parent = stored.hash
            }
            let last = try #require(try await hub.database.read { try LocalChainStore.block(chainID: chainID, number: chain.headNumber, on: $0) })
            let accounts = try await hub.database.read { try LocalChainStore.accounts(chainID: chainID, on: $0) }
            // Ethereum's state root: the secure trie over RLP([nonce, balance, storageRoot, codeHash]).
            #expect(
                try last.decoded().header.header.stateRoot
                    == EthereumStateRoot.root(
                        accounts.map { EthereumAccountState(address: $0.address, nonce: $0.nonce, balance: UInt256($0.balance)) }
                    )
            )

            let types = try await hub.database.read { connection in
                try connection.query("SELECT type FROM hub_events WHERE type LIKE 'localchain.%' ORDER BY sequence").map { try $0.text("type") }
            }
            #expect(types.first == "localchain.chain.created")
            #expect(types.filter { $0 == "localchain.block.sealed" }.count == Int(chain.headNumber))
            #expect(types.filter { $0 == "localchain.transaction.accepted" }.count == 3)
            #expect(types.filter { $0 == "localchain.transaction.sealed" }.count == 3)
            // The live feed through the kernel's event API, filtered by type.
            let feed = try await api.client.execute(
                uri: "/v1/events?type=localchain.block.*&limit=100",
                method: .get,
                headers: bearer("admin-1", "admin")
            )
            let fed = try #require(try feed.json()["data"] as? [[String: Any]])
            #expect(fed.count == Int(chain.headNumber))
            #expect(fed.allSatisfy { $0["type"] as? String == "localchain.block.sealed" && $0["subject"] as? String == String(chainID) })
            let lastData = try #require(fed.last?["data"] as? [String: Any])
            #expect((lastData["block"] as? [String: Any])?["hash"] as? String == chain.headHash)

            // `hubd verify`'s chain check: clean now; a balance changed behind the ledger's back is found.
            let clean = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(clean.problems.isEmpty, "\(clean.problems)")
            #expect(clean.chains == 1 && clean.blocks == Int(chain.headNumber) + 1)
            try await hub.database.write { connection in
                try connection.execute(
                    "UPDATE localchain_accounts SET balance = \(UInt128(301)) WHERE chain_id = \(Int64(chainID)) AND address = \(bob.description)"
                )
            }
            let tampered = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(tampered.problems.count == 3, "\(tampered.problems)")  // bob's mirror, the sum, the head's state root
        }
    }

    @Test("bad transactions are refused with a reason and change nothing", arguments: TestBackend.enabled)
    func badTransactions(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_400
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "100").status == .accepted)
            try await api.waitSealed(chainID)
            let paid = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 10)
            #expect(try await api.send(chainID, raw: paid.raw).status == .accepted)
            try await api.waitSealed(chainID)
            let eventsBefore = try await api.eventCount()
            let headBefore = try await api.head(chainID)

            func expectRefused(_ raw: [UInt8], _ code: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let response = try await api.send(chainID, raw: raw)
                #expect(response.status == .unprocessableContent, sourceLocation: sourceLocation)
                #expect(response.object["code"] as? String == code, "\(response.text)", sourceLocation: sourceLocation)
            }
            try await expectRefused(try signedTransfer(TestKeys.alice, chainID: 1, nonce: 1, to: bob, value: 1).raw, "wrong_chain_id")
            try await expectRefused([0xf8, 0xff, 0x01], "invalid_transaction")
            try await expectRefused(try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 11).raw, "nonce_too_low")
            try await expectRefused(try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: bob, value: 91).raw, "insufficient_funds")
            try await expectRefused(try signedTransfer(TestKeys.bob, chainID: chainID, nonce: 0, to: alice, value: 11).raw, "insufficient_funds")
            try await expectRefused(try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 500, to: bob, value: 1).raw, "nonce_too_high")
            try await expectRefused([UInt8](repeating: 0xC0, count: TransactionRejection.maxRawBytes + 1), "oversized")
            var badSignature = try SignedEthereumTransaction.decode(
                try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: bob, value: 1).raw
            )
            badSignature.signature.r = [UInt8](repeating: 0, count: 32)
            try await expectRefused(badSignature.raw, "invalid_signature")
            let notHex = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/transactions",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["raw": "0xzz"])
            )
            #expect(notHex.status == .unprocessableContent)

            // A replay of the sealed transaction is recognised and changes nothing.
            let replay = try await api.send(chainID, raw: paid.raw)
            #expect(replay.status == .ok)
            #expect(try replay.json()["status"] as? String == "known")

            // A nonce already pending is not replaced.
            let pending = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 2, to: bob, value: 1)
            #expect(try await api.send(chainID, raw: pending.raw).status == .accepted)  // waits for nonce 1
            try await expectRefused(try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 2, to: bob, value: 2).raw, "nonce_pending")
            #expect(try await api.eventCount() == eventsBefore + 1)
            #expect(try await api.poolCount(chainID) == 1)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await api.head(chainID) == headBefore)  // the gap holds it back
            #expect(try await api.account(chainID, alice)?.balance == 90)

            // Filling the gap seals both, in nonce order.
            #expect(
                try await api.send(chainID, raw: try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: bob, value: 5).raw).status
                    == .accepted
            )
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.nonce == 3)
            #expect(try await api.account(chainID, bob)?.balance == 16)
            try await hub.ledger.expectVerified()

            let unknownChain = try await api.send(9_999, raw: paid.raw)
            #expect(unknownChain.status == .notFound)
        }
    }

    @Test("grants, pause and close need the chain's organiser; paused and closed chains take nothing", arguments: TestBackend.enabled)
    func management(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_500
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            #expect(try await api.grant(chainID, to: alice, amount: "50", as: "org-2").status == .forbidden)
            #expect(try await api.grant(chainID, to: alice, amount: "0").status == .unprocessableContent)
            #expect(try await api.grant(chainID, to: alice, amount: "-5").status == .unprocessableContent)
            #expect(try await api.poolCount(chainID) == 0)
            #expect(try await api.grant(chainID, to: alice, amount: "50").status == .accepted)
            try await api.waitSealed(chainID)

            let pause = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/pause",
                method: .post,
                headers: bearer("org-1", "organiser")
            )
            #expect(pause.status == .ok)
            #expect(try pause.json()["status"] as? String == "paused")
            let paid = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: TestKeys.address(TestKeys.bob), value: 5)
            let refused = try await api.send(chainID, raw: paid.raw)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.object["code"] as? String == "chain_paused")
            let resume = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/resume",
                method: .post,
                headers: bearer("org-1", "organiser")
            )
            #expect(try resume.json()["status"] as? String == "active")
            #expect(try await api.send(chainID, raw: paid.raw).status == .accepted)
            try await api.waitSealed(chainID)
            let close = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/close",
                method: .post,
                headers: bearer("org-1", "organiser")
            )
            #expect(try close.json()["status"] as? String == "closed")
            let reopen = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/resume",
                method: .post,
                headers: bearer("org-1", "organiser")
            )
            #expect(reopen.status == .conflict)
            let late = try await api.send(chainID, raw: try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: alice, value: 1).raw)
            #expect(late.object["code"] as? String == "chain_closed")
            // Final balances are kept.
            #expect(try await api.account(chainID, alice)?.balance == 45)
            try await hub.ledger.expectVerified()
        }
    }

    @Test("concurrent senders: every transaction accepted once (group commit), sealed in nonce order", arguments: TestBackend.enabled)
    func concurrentIntake(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_700
            #expect(try await api.createChain(chainID).status == .created)
            let keys = (1...4).map { [UInt8](repeating: UInt8(0x20 + $0), count: 32) }
            for key in keys { #expect(try await api.grant(chainID, to: TestKeys.address(key), amount: "100").status == .accepted) }
            try await api.waitSealed(chainID)
            let sink = try EthereumAddress("0x00000000000000000000000000000000000051a0")
            // Each sender's 25 transactions in flight at once, out of order: gaps wait, none is lost.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for key in keys {
                    for nonce in (0..<25).shuffled() {
                        group.addTask {
                            let raw = try signedTransfer(key, chainID: chainID, nonce: UInt64(nonce), to: sink, value: 2).raw
                            return Int(try await api.send(chainID, raw: raw).status.code)
                        }
                    }
                }
                for try await status in group { #expect(status == 202) }
            }
            try await api.waitSealed(chainID)
            for key in keys {
                let account = try #require(try await api.account(chainID, TestKeys.address(key)))
                #expect(account.nonce == 25 && account.balance == 50)
            }
            #expect(try await api.account(chainID, sink)?.balance == 200)
            try await hub.ledger.expectVerified()
            let report = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }

    @Test("accepted transactions survive a restart and are sealed by the next process", arguments: TestBackend.enabled)
    func durableAcrossRestart(backend: TestBackend) async throws {
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        let chainID: UInt64 = 4_600
        let alice = TestKeys.address(TestKeys.alice)
        try await withDatabase(on: backend) { database in
            // First process: its sealer never ticks within the test (10 s), so the grant only waits.
            let first = try localChainHub(database: database, keyFile: keyFile, sealTickMs: 10_000)
            try await HubAssembly.migrator(for: first).migrate(database)
            try await first.prepare()
            let firstApp = Application(router: buildRouter(hub: first), services: first.services)
            try await firstApp.test(.router) { (client: any TestClientProtocol) async throws in
                let api = LocalChainAPI(client: client, database: database)
                #expect(try await api.createChain(chainID).status == .created)
                #expect(try await api.grant(chainID, to: alice, amount: "77").status == .accepted)
                #expect(try await api.poolCount(chainID) == 1)
                // Money counts once sealed: until then Alice cannot spend the grant.
                let early = try await api.send(chainID, raw: try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: alice, value: 1).raw)
                #expect(early.object["code"] as? String == "insufficient_funds")
                #expect(try await api.poolCount(chainID) == 1)
            }
            // Second process on the same database and key file seals it.
            let second = try localChainHub(database: database, keyFile: keyFile, sealTickMs: 20)
            try await HubAssembly.migrator(for: second).migrate(database)
            try await second.prepare()
            let secondApp = Application(router: buildRouter(hub: second), services: second.services)
            try await secondApp.test(.router) { (client: any TestClientProtocol) async throws in
                let api = LocalChainAPI(client: client, database: database)
                try await api.waitSealed(chainID)
                #expect(try await api.account(chainID, alice)?.balance == 77)
                try await second.ledger.expectVerified()
            }
        }
    }
}
