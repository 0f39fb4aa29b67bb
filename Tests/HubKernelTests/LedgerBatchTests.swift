import Foundation
import Testing

@testable import HubKernel

/// The batch state machine on its own, without storage.
@Suite("Ledger batch state machine")
struct LedgerBatchTests {
    let usd = AssetCode("USD")!
    let issuance = AccountID(rawValue: 1)
    let alice = AccountID(rawValue: 2)
    let bob = AccountID(rawValue: 3)

    func account(_ id: AccountID, flags: AccountFlags, credits: UInt128 = 0, debits: UInt128 = 0) -> Account {
        Account(
            id: id,
            asset: usd,
            owner: .user("\(id.rawValue)"),
            code: "wallet",
            flags: flags,
            debitsPosted: debits,
            creditsPosted: credits,
            debitsPending: 0,
            creditsPending: 0,
            metadata: [:],
            createdAt: LedgerTimestamp(nanoseconds: 1)
        )
    }

    func batch(now: UInt64 = 1_000, last: UInt64 = 0) -> LedgerBatch {
        LedgerBatch(
            accounts: [
                issuance: account(issuance, flags: [], debits: 100),
                alice: account(alice, flags: .debitsMustNotExceedCredits, credits: 100),
                bob: account(bob, flags: .debitsMustNotExceedCredits),
            ],
            transfers: [:],
            pending: [:],
            lastTimestamp: last,
            now: now
        )
    }

    @Test("a failed chain restores balances, holds and created transfers exactly")
    func chainRollback() {
        var state = batch()
        let before = state.accounts
        let holdID = TransferID(rawValue: 10)
        let results = state.apply([
            TransferRequest(id: holdID, action: .hold(debit: alice, credit: bob, amount: 40, asset: usd, timeoutSeconds: 5), linked: true),
            TransferRequest(id: TransferID(rawValue: 11), action: .postPending(pendingID: holdID, amount: 10), linked: true),
            TransferRequest(id: TransferID(rawValue: 12), action: .post(debit: alice, credit: bob, amount: 1_000, asset: usd)),
        ])
        #expect(results.map { $0.error?.code } == [.linkedEventFailed, .linkedEventFailed, .exceedsCredits])
        #expect(state.accounts == before)
        #expect(state.pending.isEmpty)
        #expect(state.transfers.isEmpty)
        #expect(state.created.isEmpty)
        #expect(state.events.isEmpty)
    }

    @Test("timestamps strictly increase even when the clock stands still or goes back")
    func timestamps() {
        var state = batch(now: 500, last: 900)
        let results = state.apply(
            (0..<3).map { index in
                TransferRequest(id: TransferID(rawValue: UInt128(20 + index)), action: .post(debit: alice, credit: bob, amount: 1, asset: usd))
            }
        )
        #expect(results.compactMap { $0.transfer?.timestamp.nanoseconds } == [901, 902, 903])
    }

    @Test("a hold's expiry is its timestamp plus the timeout; expire() releases it only when due")
    func expiry() {
        var state = batch(now: 1_000)
        let holdID = TransferID(rawValue: 30)
        _ = state.apply([TransferRequest(id: holdID, action: .hold(debit: alice, credit: bob, amount: 60, asset: usd, timeoutSeconds: 2))])
        #expect(state.pending[holdID]?.expiresAt?.nanoseconds == 1_000 + 2_000_000_000)
        let expiredEarly = state.expire(holdID)
        #expect(!expiredEarly)
        var later = LedgerBatch(
            accounts: state.accounts,
            transfers: state.transfers,
            pending: state.pending,
            lastTimestamp: state.lastTimestamp,
            now: 1_000 + 2_000_000_000
        )
        let expiredWhenDue = later.expire(holdID)
        #expect(expiredWhenDue)
        #expect(later.pending[holdID]?.state == .expired)
        #expect(later.accounts[alice]?.debitsPending == 0)
        #expect(later.accounts[bob]?.creditsPending == 0)
        #expect(later.events.last?.type == "ledger.transfer.pending_expired")
        let expiredTwice = later.expire(holdID)
        #expect(!expiredTwice)
    }

    @Test("event data is valid JSON with amounts as strings")
    func eventJSON() throws {
        var state = batch()
        _ = state.apply([
            TransferRequest(
                id: TransferID(rawValue: 40),
                action: .post(debit: alice, credit: bob, amount: 7, asset: usd),
                reference: TransferReference(rail: "r", type: "t\"q", id: "i\n"),
                metadata: ["b": "2", "a": "\u{01}"]
            )
        ])
        let data = try #require(state.events.first?.data)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        #expect(object["amount"] as? String == "7")
        #expect((object["ref"] as? [String: String])?["type"] == "t\"q")
        #expect((object["metadata"] as? [String: String])?["a"] == "\u{01}")
    }
}
