import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubBLESessions
@testable import HubLocalChain

/// Issue #12, money: who may move which money. Each test replays an attack that succeeded before
/// the fix and checks that it is refused and changes nothing.
@Suite("security: money", .timeLimit(.minutes(3)))
struct MoneySecurityTests {
    static let admin = bearer("admin-1", "admin")
    static let organiser = bearer("org-1", "organiser")

    static func transfer(_ client: any TestClientProtocol, as caller: HTTPFields, _ body: [String: Any]) async throws -> TestResponse {
        try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: caller + jsonHeaders, body: jsonBody(body))
    }

    @Test("#1 a chain's mirror and issuance accounts are moved by the rail alone, whoever asks", arguments: TestBackend.enabled)
    func railAccountsAreTheRails(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 93_100_001
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            #expect(try await api.grant(chainID, to: alice, amount: "1000").status == .accepted)
            try await api.waitSealed(chainID)
            let code = LocalChainIDs.assetCode(chainID: chainID)
            let asset = try #require(try await hub.ledger.asset(code))
            #expect(asset.rail == "localchain")
            let mirrorID = LocalChainIDs.ledgerAccount(chainID: chainID, address: alice)
            let mirror = try #require(try await hub.ledger.account(mirrorID))
            #expect(mirror.rail == "localchain")
            let issuance = try #require(try await hub.ledger.account(asset.issuanceAccountID))
            #expect(issuance.rail == "localchain")

            // An admin (and the chain's organiser) try to open an account of the chain's asset to
            // receive the money: refused, so there is nowhere to move it to.
            for caller in [Self.admin, Self.organiser] {
                let open = try await api.client.execute(
                    uri: "/v1/ledger/accounts",
                    method: .post,
                    headers: caller + jsonHeaders,
                    body: jsonBody(["asset": code.rawValue])
                )
                #expect(open.status == .unprocessableContent, "\(open.text)")
                #expect(problemCode(open) == "owned_by_rail")
            }
            // Draining the mirror or minting from the issuance account into it: refused for the
            // admin and the organiser alike, and naming the rail in `ref` does not help.
            let attempts: [[String: Any]] = [
                [
                    "debit_account_id": mirrorID.description, "credit_account_id": asset.issuanceAccountID.description, "amount": "400",
                    "asset": code.rawValue,
                ],
                [
                    "debit_account_id": asset.issuanceAccountID.description, "credit_account_id": mirrorID.description, "amount": "400",
                    "asset": code.rawValue,
                ],
                [
                    "action": "hold", "debit_account_id": asset.issuanceAccountID.description, "credit_account_id": mirrorID.description,
                    "amount": "400", "asset": code.rawValue, "timeout_seconds": 60,
                ],
            ]
            for caller in [Self.admin, Self.organiser] {
                for attempt in attempts {
                    let response = try await Self.transfer(api.client, as: caller, attempt)
                    #expect(response.status == .unprocessableContent, "\(response.text)")
                    #expect(problemCode(response) == "owned_by_rail" || problemCode(response) == "debit_account_not_found", "\(response.text)")
                }
                var spoofed = attempts[0]
                spoofed["ref"] = ["rail": "localchain", "type": "transaction", "id": "0xforged"]
                let response = try await Self.transfer(api.client, as: caller, spoofed)
                #expect(response.status == .unprocessableContent)
                #expect(problemCode(response) == "owned_by_rail", "\(response.text)")
            }
            // The ledger itself refuses too (a path that forgets the controller's checks).
            let direct = try await hub.ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: mirrorID, credit: asset.issuanceAccountID, amount: 1, asset: code))
            )
            guard case .failed(let error) = direct else {
                Issue.record("the ledger moved a rail's account for a caller that is not the rail")
                return
            }
            #expect(error.code == .ownedByRail)

            // Nothing moved, and the chain goes on: a payment from alice is sealed as usual.
            #expect(try await hub.ledger.account(mirrorID)?.available == 1000)
            let bob = TestKeys.address(TestKeys.bob)
            let pay = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 250)
            #expect(try await api.send(chainID, raw: pay.raw).status == .accepted)
            try await api.waitSealed(chainID)
            #expect(try await hub.ledger.account(mirrorID)?.available == 750)
            let chainReport = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(chainReport.problems.isEmpty, "\(chainReport.problems)")
            let ledgerReport = try await LedgerVerifier.verify(hub.database)
            #expect(ledgerReport.passed, "\(ledgerReport)")
        }
    }

    @Test("#1 a rail's holds are posted and voided by the rail alone", arguments: TestBackend.enabled)
    func railHoldsAreTheRails(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let session = try await api.open(amount: "2500")
            let id = try #require(session["id"] as? String)
            #expect(try await api.lock(id, as: "alice").status == .ok)
            let locked = try await hub.ledger.transfers(account: AccountID.wallet(user: testUserID("alice"), asset: AssetCode("EUR")!), limit: 100)
            let hold = try #require(locked.first { $0.kind == .pending })
            // The payee (credit side) and an admin try to capture or release the lock's hold.
            for (caller, action) in [(bearer("payee"), "post"), (Self.admin, "post"), (Self.admin, "void"), (bearer("alice"), "void")] {
                let response = try await api.client.execute(uri: "/v1/ledger/transfers/\(hold.id)/\(action)", method: .post, headers: caller)
                #expect(response.status == .unprocessableContent, "\(action): \(response.text)")
                #expect(problemCode(response) == "owned_by_rail", "\(response.text)")
                let batch = try await api.client.execute(
                    uri: "/v1/ledger/transfers/batch",
                    method: .post,
                    headers: caller + jsonHeaders,
                    body: jsonBody(["transfers": [["action": action == "post" ? "post_pending" : "void_pending", "pending_id": hold.id.description]]])
                )
                #expect(batch.status == .unprocessableContent, "batch \(action): \(batch.text)")
            }
            #expect(try await hub.ledger.pendingStatus(hold.id)?.state == .pending)
            // The rail itself still pays it.
            #expect(try await api.pay(id, as: "alice").status == .ok)
            #expect(try await api.wallet("payee").available == 2500)
        }
    }

    @Test("#2 an asset code a rail reserves is refused to others, and a chain never adopts an asset", arguments: TestBackend.enabled)
    func reservedAssetCodes(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            // Squatting the asset of a chain that does not exist yet, as organiser or admin.
            for caller in [Self.organiser, Self.admin] {
                let squat = try await api.client.execute(
                    uri: "/v1/assets",
                    method: .post,
                    headers: caller + jsonHeaders,
                    body: jsonBody(["code": "EVT-93107777", "scale": 2, "name": "Fest Token"])
                )
                #expect(squat.status == .unprocessableContent, "\(squat.text)")
                #expect(problemCode(squat) == "asset_code_reserved")
            }
            #expect(try await hub.ledger.asset(AssetCode("EVT-93107777")!) == nil)
            #expect(try await api.createChain(93_107_777).status == .created)

            // An asset that exists from before the reservation (an older hub), minted outside any
            // chain: the chain refuses it instead of adopting it.
            try await hub.database.write { connection in
                try connection.execute(
                    """
                    INSERT INTO ledger_assets (code, scale, name, issuance_account_id, organiser_id, created_at) \
                    VALUES (\("EVT-93108888"), 2, 'Fest Token', \(AccountID.random()), \(uid("org-1")), 1)
                    """
                )
            }
            let adopt = try await api.createChain(93_108_888)
            #expect(adopt.status == .conflict, "\(adopt.text)")
            let chains = try await hub.database.read {
                try $0.queryFirst("SELECT count(*) AS n FROM localchain_chains WHERE chain_id = 93108888")?.int("n")
            }
            #expect(chains == 0)
        }
    }

    @Test("#4 an organiser mints through issuance and moves their own accounts, never a member's", arguments: TestBackend.enabled)
    func organiserCannotMoveMembersMoney(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (issuance, aliceWallet, bobWallet) = try await LedgerAPITests.setUp(client, funds: "4500")
            // The organiser debits alice's wallet (to bob, or back to issuance): refused.
            for credit in [bobWallet, issuance] {
                let response = try await Self.transfer(
                    client,
                    as: Self.organiser,
                    ["debit_account_id": aliceWallet, "credit_account_id": credit, "amount": "100", "asset": "EVT"]
                )
                #expect(response.status == .unprocessableContent, "\(response.text)")
                #expect(problemCode(response) == "debit_account_not_found")
            }
            let hold = try await Self.transfer(
                client,
                as: Self.organiser,
                [
                    "action": "hold", "debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "100", "asset": "EVT",
                    "timeout_seconds": 60,
                ]
            )
            #expect(hold.status == .unprocessableContent)
            #expect(try await LedgerAPITests.available(client, aliceWallet) == "4500")

            // An organiser may not open accounts that can go negative (minting outside issuance).
            for flags in [[String](), ["credits_must_not_exceed_debits"]] {
                let open = try await client.execute(
                    uri: "/v1/ledger/accounts",
                    method: .post,
                    headers: Self.organiser + jsonHeaders,
                    body: jsonBody(["asset": "EVT", "flags": flags])
                )
                #expect(open.status == .forbidden, "\(flags): \(open.text)")
            }
            // What an organiser does do: mint, and collect into (and spend from) their own wallet.
            let own = try await client.execute(uri: "/v1/users/\(uid("org-1"))/wallets/EVT", method: .put, headers: Self.organiser)
            let ownWallet = try #require(try own.json()["id"] as? String)
            #expect(
                try await Self.transfer(
                    client,
                    as: bearer("alice"),
                    ["debit_account_id": aliceWallet, "credit_account_id": ownWallet, "amount": "500", "asset": "EVT"]
                ).status == .created
            )
            #expect(
                try await Self.transfer(
                    client,
                    as: Self.organiser,
                    ["debit_account_id": issuance, "credit_account_id": bobWallet, "amount": "100", "asset": "EVT"]
                ).status == .created
            )
            #expect(
                try await Self.transfer(
                    client,
                    as: Self.organiser,
                    ["debit_account_id": ownWallet, "credit_account_id": issuance, "amount": "200", "asset": "EVT"]
                ).status == .created
            )
            #expect(try await LedgerVerifier.verify(hub.database).passed)
        }
    }

    @Test("#12 every transfer a BLE payment makes names the rail", arguments: TestBackend.enabled)
    func bleTransfersNameTheRail(backend: TestBackend) async throws {
        try await withBLEHub(on: backend) { hub, api in
            let paid = try await api.open(amount: "2500")
            let paidID = try #require(paid["id"] as? String)
            #expect(try await api.lock(paidID, as: "alice").status == .ok)
            #expect(try await api.pay(paidID, as: "alice").status == .ok)
            let cancelled = try await api.open(amount: "700")
            let cancelledID = try #require(cancelled["id"] as? String)
            #expect(try await api.lock(cancelledID, as: "bob").status == .ok)
            #expect(try await api.post("/sessions/\(cancelledID)/cancel", as: "payee").status == .ok)

            var transfers: [Transfer] = []
            for user in ["alice", "bob"] {
                transfers += try await hub.ledger.transfers(account: AccountID.wallet(user: testUserID(user), asset: AssetCode("EUR")!), limit: 100)
            }
            let railTransfers = transfers.filter { $0.kind != .posted }  // the test's own minting is kernel money
            #expect(Set(railTransfers.map(\.kind)) == [.pending, .postPending, .voidPending])
            for transfer in railTransfers {
                #expect(
                    transfer.reference?.rail == BLESessionsPlugin.id,
                    "\(transfer.kind) \(transfer.id) has ref \(String(describing: transfer.reference))"
                )
            }
        }
    }
}
