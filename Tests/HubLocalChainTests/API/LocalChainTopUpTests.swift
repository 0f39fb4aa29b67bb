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

@Suite("local chain top-ups and cash-outs", .timeLimit(.minutes(3)))
struct LocalChainTopUpTests {
    @Test("a member buys chain currency with dollars and cashes it back out, the ledger moving both sides", arguments: TestBackend.enabled)
    func topUpAndCashOut(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 7_100
            let created = try await api.createChain(chainID)
            let validator = try EthereumAddress(try #require(try created.json()["validator"] as? String))
            let usd = try await hub.ledger.makeAsset("USD")
            let member = try await hub.ledger.makeWallet(usd, owner: uid("user-1"))
            let collection = try await hub.ledger.makeWallet(usd, owner: uid("org-1"))
            try await hub.ledger.mint(10_000, of: usd, to: member)
            let alice = TestKeys.address(TestKeys.alice)
            func post(_ path: String, _ body: [String: Any], as user: String = "user-1") async throws -> TestResponse {
                try await api.client.execute(
                    uri: "/v1/rails/localchain/chains/\(chainID)/\(path)",
                    method: .post,
                    headers: bearer(user, "member") + jsonHeaders,
                    body: jsonBody(body)
                )
            }

            // No rate yet: nothing can be bought.
            let early = try await post("topups", ["to": alice.checksummed, "amount": "100", "from_account_id": member.id.description])
            #expect(early.status == .conflict)
            #expect(early.object["code"] as? String == "no_topup_rate")

            let rateBody: [String: Any] = ["asset": "USD", "pay": "1", "receive": "100", "collection_account_id": collection.id.description]
            let byOther = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                method: .put,
                headers: bearer("org-2", "organiser") + jsonHeaders,
                body: jsonBody(rateBody)
            )
            #expect(byOther.status == .forbidden)
            let rate = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate",
                method: .put,
                headers: bearer("org-1", "organiser") + jsonHeaders,
                body: jsonBody(rateBody)
            )
            #expect(rate.status == .ok)
            let shown = try await api.client.execute(uri: "/v1/rails/localchain/chains/\(chainID)/topup-rate", method: .get)
            #expect(try shown.json()["receive"] as? String == "100")

            // Refusals change nothing.
            let inexact = try await post("topups", ["to": alice.checksummed, "amount": "5050", "from_account_id": member.id.description])
            #expect(inexact.object["code"] as? String == "amount_not_exact")
            let tooMuch = try await post("topups", ["to": alice.checksummed, "amount": "2000000", "from_account_id": member.id.description])
            #expect(tooMuch.object["code"] as? String == "exceeds_credits")
            let notMine = try await post("topups", ["to": alice.checksummed, "amount": "100", "from_account_id": collection.id.description])
            #expect(notMine.object["code"] as? String == "account_not_found")
            #expect(try await api.poolCount(chainID) == 0)
            #expect(try await hub.ledger.balance(member).available == 10_000)

            let bought = try await post("topups", ["to": alice.checksummed, "amount": "5000", "from_account_id": member.id.description])
            #expect(bought.status == .accepted)
            #expect(try bought.json()["paid"] as? String == "50")
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.balance == 5_000)
            #expect(try await hub.ledger.balance(member).available == 9_950)
            #expect(try await hub.ledger.balance(collection).available == 50)

            // Paying the validator directly is refused; a cash-out is the way.
            let burn = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: validator, value: 2_000)
            let direct = try await api.send(chainID, raw: burn.raw)
            #expect(direct.object["code"] as? String == "validator_recipient")
            let cashOut = try await post(
                "cashouts",
                [
                    "raw": Hex.encode(burn.raw), "payout_account_id": member.id.description,
                    "payout_signature": try cashOutSignature(TestKeys.alice, chainID, burn, member.id),
                ]
            )
            #expect(cashOut.status == .accepted, "\(cashOut.text)")
            #expect(try cashOut.json()["paid"] as? String == "20")
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.balance == 3_000)
            #expect(try await api.account(chainID, validator)?.balance == 0)
            #expect(try await hub.ledger.balance(member).available == 9_970)
            let collected = try await hub.ledger.balance(collection)
            #expect(collected.available == 30 && collected.debitsPending == 0)
            let asset = try #require(try await hub.ledger.asset(AssetCode("EVT-\(chainID)")!))
            let issuance = try await hub.ledger.balance(try #require(try await hub.ledger.account(asset.issuanceAccountID)))
            #expect(issuance.debitsPosted - issuance.creditsPosted == 3_000)

            // A cash-out that is not a transfer to the validator is refused with nothing held.
            let notBurn = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 1, to: TestKeys.address(TestKeys.bob), value: 100)
            let refused = try await post(
                "cashouts",
                [
                    "raw": Hex.encode(notBurn.raw), "payout_account_id": member.id.description,
                    "payout_signature": try cashOutSignature(TestKeys.alice, chainID, notBurn, member.id),
                ]
            )
            #expect(refused.object["code"] as? String == "not_a_cash_out")
            #expect(try await hub.ledger.balance(collection).debitsPending == 0)
            try await hub.ledger.expectVerified()
            let report = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }
}
