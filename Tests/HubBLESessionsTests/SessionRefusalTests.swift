import HTTPTypes
import HubKernel
import Testing

@testable import HubBLESessions

/// The rail's refusals are domain errors now; the kernel picks their statuses by kind. These are
/// the statuses the rail's API answered with when it built its problems itself, and clients (the
/// Gotchu app among them) depend on them.
@Suite("BLE session refusals")
struct SessionRefusalTests {
    static let statusBefore: [SessionRefusal.Reason: Int] = [
        .sessionNotFound: 404,
        .eidNotFound: 404,
        .sessionExpired: 410,
        .sessionCancelled: 410,
        .lockExpired: 410,
        .sessionPaid: 409,
        .sessionLocked: 409,
        .shareAlreadyPaid: 409,
        .sessionNotLocked: 409,
        .cannotPaySelf: 422,
        .insufficientFunds: 422,
        .walletNotFound: 422,
        .ledgerRefused: 422,
        .invalidField: 422,
        .assetNotFound: 422,
    ]

    @Test("every refusal answers with the status it had and its stable code", arguments: SessionRefusal.Reason.allCases)
    func status(reason: SessionRefusal.Reason) throws {
        let expected = try #require(Self.statusBefore[reason], "a new refusal needs its status here")
        let problem = Problem(SessionRefusal(reason, "why"))
        #expect(Int(problem.status.code) == expected)
        #expect(!problem.status.reasonPhrase.isEmpty)
        #expect(problem.code == reason.rawValue)
        #expect(problem.detail == "why")
    }

    @Test("codes and messages as before; a ledger refusal keeps the ledger's code; a bad field is named")
    func details() {
        let ledger = SessionRefusal.ledgerRefused(TransferError(.accountsMustBeDifferent, "debit and credit are the same account"))
        #expect(Problem(ledger).code == "accounts_must_be_different")
        #expect(Problem(ledger).detail == "debit and credit are the same account")
        #expect(SessionRefusal.notFound().errorCode == "not_found")
        #expect(SessionRefusal.notFound().message == "No session with that id, or you may not see it.")
        #expect(SessionRefusal.cancelled().message == "The payee cancelled the session.")
        let asset = SessionRefusal.noAsset(AssetCode("EUR")!)
        #expect(Problem(asset).field == "asset" && Problem(asset).code == "asset_not_found")
        #expect(Problem(SessionRefusal.invalid("ttl_seconds", "too long")).field == "ttl_seconds")
    }

    @Test("an ended session is refused as paid, cancelled or expired")
    func ended() {
        var session = PaymentSessionTests.session(amount: 100, shares: 1)
        session.status = .paid
        #expect(SessionRefusal.ended(session).reason == .sessionPaid)
        session.status = .cancelled
        #expect(SessionRefusal.ended(session).reason == .sessionCancelled)
        session.status = .expired
        #expect(SessionRefusal.ended(session).reason == .sessionExpired)
    }
}
