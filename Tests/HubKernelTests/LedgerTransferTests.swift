import HubKernel
import HubTestSupport
import Testing

@Suite("Ledger transfers", .timeLimit(.minutes(4)))
struct LedgerTransferTests {
    @Test("a minted wallet pays another and the balances move exactly", arguments: TestBackend.enabled)
    func simpleTransfer(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(10_000, of: usd, to: alice)

            let result = try await ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 2_501, asset: usd.code))
            )
            let transfer = try #require(result.transfer)
            #expect(transfer.kind == .posted)
            #expect(try await ledger.balance(alice).available == 7_499)
            #expect(try await ledger.balance(bob).available == 2_501)
            let issuance = try #require(try await ledger.account(usd.issuanceAccountID))
            #expect(issuance.debitsPosted == 10_000)
            try await ledger.expectVerified()
        }
    }

    @Test("2^128-1 is stored and read back exactly", arguments: TestBackend.enabled)
    func maximumAmount(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let big = try await ledger.makeAsset("BIG", scale: 0)
            let wallet = try await ledger.makeWallet(big)
            try await ledger.mint(UInt128.max, of: big, to: wallet)
            let stored = try await ledger.balance(wallet)
            #expect(stored.creditsPosted == UInt128.max)
            // The issuance account has issued 2^128-1: one more unit overflows its debits.
            let more = try await ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: big.issuanceAccountID, credit: wallet.id, amount: 1, asset: big.code))
            )
            #expect(more.error?.code == .overflowsDebits)
            #expect(try await ledger.balance(wallet).creditsPosted == UInt128.max)
            try await ledger.expectVerified()
        }
    }

    @Test("a transfer that would overflow the credit side is refused", arguments: TestBackend.enabled)
    func creditOverflow(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let big = try await ledger.makeAsset("BIG", scale: 0)
            let a = try await ledger.makeWallet(big)
            let b = try await ledger.makeWallet(big)
            try await ledger.mint(UInt128.max - 5, of: big, to: a)
            try await ledger.mint(5, of: big, to: b)
            _ = try await ledger.submit(TransferRequest(id: .random(), action: .post(debit: a.id, credit: b.id, amount: 1, asset: big.code)))
            // a's credits stand at 2^128-6; six more would pass 2^128-1.
            let result = try await ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: b.id, credit: a.id, amount: 6, asset: big.code))
            )
            #expect(result.error?.code == .overflowsCredits)
            #expect(try await ledger.balance(b).available == 6)
            try await ledger.expectVerified()
        }
    }

    @Test("re-submitting a transfer returns exists; changing a field names the field", arguments: TestBackend.enabled)
    func idempotency(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000, of: usd, to: alice)
            let request = TransferRequest(
                id: .random(),
                action: .post(debit: alice.id, credit: bob.id, amount: 300, asset: usd.code),
                reference: TransferReference(rail: "test", type: "order", id: "42"),
                metadata: ["note": "lunch \"and\" coffee\n"]
            )
            let first = try await ledger.submit(request)
            guard case .created(let created) = first else { Issue.record("expected created, got \(first)"); return }
            let again = try await ledger.submit(request)
            #expect(again == .exists(created))

            var changed = request
            changed.action = .post(debit: alice.id, credit: bob.id, amount: 301, asset: usd.code)
            #expect(try await ledger.submit(changed).error == TransferError(.existsWithDifferentFields, "", field: "amount"))
            changed = request
            changed.metadata = ["note": "dinner"]
            #expect(try await ledger.submit(changed).error == TransferError(.existsWithDifferentFields, "", field: "metadata"))
            #expect(try await ledger.balance(bob).available == 300)
            try await ledger.expectVerified()
        }
    }

    @Test("bad transfers get typed errors and change nothing", arguments: TestBackend.enabled)
    func badInput(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let eur = try await ledger.makeAsset("EUR")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            let euro = try await ledger.makeWallet(eur)
            try await ledger.mint(1_000, of: usd, to: alice)
            let before = try await ledger.accounts([alice.id, bob.id, euro.id])

            let cases: [(TransferAction, TransferError.Code)] = [
                (.post(debit: alice.id, credit: bob.id, amount: 0, asset: usd.code), .amountMustNotBeZero),
                (.post(debit: alice.id, credit: alice.id, amount: 5, asset: usd.code), .accountsMustBeDifferent),
                (.post(debit: .random(), credit: bob.id, amount: 5, asset: usd.code), .debitAccountNotFound),
                (.post(debit: alice.id, credit: .random(), amount: 5, asset: usd.code), .creditAccountNotFound),
                (.post(debit: alice.id, credit: euro.id, amount: 5, asset: usd.code), .assetMismatch),
                (.post(debit: alice.id, credit: bob.id, amount: 5, asset: eur.code), .assetMismatch),
                (.post(debit: alice.id, credit: bob.id, amount: 1_001, asset: usd.code), .exceedsCredits),
                (.hold(debit: alice.id, credit: bob.id, amount: 1_001, asset: usd.code, timeoutSeconds: 0), .exceedsCredits),
                (.postPending(pendingID: .random(), amount: nil), .pendingTransferNotFound),
                (.voidPending(pendingID: .random()), .pendingTransferNotFound),
            ]
            for (action, code) in cases {
                let result = try await ledger.submit(TransferRequest(id: .random(), action: action))
                #expect(result.error?.code == code, "\(action)")
            }
            let zeroID = try await ledger.submit(
                TransferRequest(id: TransferID(rawValue: 0), action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code))
            )
            #expect(zeroID.error?.code == .idMustNotBeZero)
            let tooLong = try await ledger.submit(
                TransferRequest(
                    id: .random(),
                    action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code),
                    metadata: ["k": String(repeating: "x", count: 2_000)]
                )
            )
            #expect(tooLong.error?.code == .invalidField)

            let after = try await ledger.accounts([alice.id, bob.id, euro.id])
            #expect(Set(after.map(\.id)) == Set(before.map(\.id)))
            for account in after { #expect(before.first { $0.id == account.id } == account) }
            try await ledger.expectVerified()
        }
    }

    @Test("a hold reserves funds; post in part, post in full, void; resolved holds stay resolved", arguments: TestBackend.enabled)
    func twoPhase(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let payer = try await ledger.makeWallet(usd)
            let payee = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000, of: usd, to: payer)

            let holdID = TransferID.random()
            let hold = try await ledger.submit(
                TransferRequest(id: holdID, action: .hold(debit: payer.id, credit: payee.id, amount: 600, asset: usd.code, timeoutSeconds: 60))
            )
            #expect(hold.transfer?.kind == .pending)
            #expect(try await ledger.balance(payer).available == 400)
            #expect(try await ledger.balance(payer).debitsPending == 600)
            // Held funds cannot be spent twice.
            let overspend = try await ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: payer.id, credit: payee.id, amount: 401, asset: usd.code))
            )
            #expect(overspend.error?.code == .exceedsCredits)
            let tooMuch = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: holdID, amount: 601)))
            #expect(tooMuch.error?.code == .exceedsPendingTransferAmount)

            let partial = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: holdID, amount: 250)))
            #expect(partial.transfer?.amount == 250)
            let payerAfter = try await ledger.balance(payer)
            #expect(payerAfter.debitsPending == 0)
            #expect(payerAfter.available == 750)
            #expect(try await ledger.balance(payee).available == 250)
            #expect(try await ledger.pendingStatus(holdID)?.state == .posted)

            let again = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: holdID, amount: nil)))
            #expect(again.error?.code == .pendingTransferAlreadyPosted)
            let voidPosted = try await ledger.submit(TransferRequest(id: .random(), action: .voidPending(pendingID: holdID)))
            #expect(voidPosted.error?.code == .pendingTransferAlreadyPosted)

            let secondHold = TransferID.random()
            _ = try await ledger.submit(
                TransferRequest(id: secondHold, action: .hold(debit: payer.id, credit: payee.id, amount: 700, asset: usd.code, timeoutSeconds: 0))
            )
            let voided = try await ledger.submit(TransferRequest(id: .random(), action: .voidPending(pendingID: secondHold)))
            #expect(voided.transfer?.kind == .voidPending)
            #expect(try await ledger.balance(payer).available == 750)
            let postVoided = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: secondHold, amount: nil)))
            #expect(postVoided.error?.code == .pendingTransferAlreadyVoided)
            let notAHold = try await ledger.submit(
                TransferRequest(id: .random(), action: .voidPending(pendingID: try #require(partial.transfer?.id)))
            )
            #expect(notAHold.error?.code == .pendingTransferNotPending)
            try await ledger.expectVerified()
        }
    }

    @Test("holds past their timeout are voided by the sweeper and can no longer be posted", arguments: TestBackend.enabled)
    func expiry(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withLedger(on: backend, clock: clock.ledgerClock) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let payer = try await ledger.makeWallet(usd)
            let payee = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: payer)
            let short = TransferID.random()
            let long = TransferID.random()
            _ = try await ledger.submit([
                TransferRequest(id: short, action: .hold(debit: payer.id, credit: payee.id, amount: 30, asset: usd.code, timeoutSeconds: 10)),
                TransferRequest(id: long, action: .hold(debit: payer.id, credit: payee.id, amount: 50, asset: usd.code, timeoutSeconds: 100)),
            ])
            #expect(try await ledger.expireDue() == 0)
            clock.advance(seconds: 11)
            // Due but not yet swept: posting is refused all the same.
            let late = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: short, amount: nil)))
            #expect(late.error?.code == .pendingTransferExpired)
            #expect(try await ledger.expireDue() == 1)
            #expect(try await ledger.pendingStatus(short)?.state == .expired)
            #expect(try await ledger.pendingStatus(long)?.state == .pending)
            #expect(try await ledger.balance(payer).available == 50)
            let posted = try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: long, amount: nil)))
            #expect(posted.transfer?.amount == 50)
            clock.advance(seconds: 200)
            #expect(try await ledger.expireDue() == 0)
            #expect(try await ledger.balance(payee).available == 50)
            try await ledger.expectVerified()
        }
    }

    @Test("a linked chain with a failing member applies none of its members", arguments: TestBackend.enabled)
    func linkedChains(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let buyer = try await ledger.makeWallet(usd)
            let seller = try await ledger.makeWallet(usd)
            let artist = try await ledger.makeWallet(usd)
            let platform = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000, of: usd, to: buyer)

            func split(_ total: UInt128, lastAmount: UInt128) -> [TransferRequest] {
                [
                    TransferRequest(id: .random(), action: .post(debit: buyer.id, credit: seller.id, amount: total, asset: usd.code), linked: true),
                    TransferRequest(id: .random(), action: .post(debit: seller.id, credit: artist.id, amount: 20, asset: usd.code), linked: true),
                    TransferRequest(id: .random(), action: .post(debit: seller.id, credit: platform.id, amount: lastAmount, asset: usd.code)),
                ]
            }
            // The last leg overdraws the seller: the whole chain fails.
            let failing = try await ledger.submit(split(500, lastAmount: 10_000))
            #expect(failing.map { $0.error?.code } == [.linkedEventFailed, .linkedEventFailed, .exceedsCredits])
            #expect(try await ledger.balance(buyer).available == 1_000)
            #expect(try await ledger.balance(seller).available == 0)

            let chain = split(500, lastAmount: 20)
            let ok = try await ledger.submit(chain)
            #expect(ok.allSatisfy { $0.transfer != nil })
            #expect(try await ledger.balance(seller).available == 460)
            // Retrying the whole chain is idempotent.
            let retry = try await ledger.submit(chain)
            #expect(retry.allSatisfy { if case .exists = $0 { true } else { false } })

            // An unterminated chain at the end of a batch is refused.
            var open = split(1, lastAmount: 1)
            open[2].linked = true
            let openResult = try await ledger.submit(open)
            #expect(openResult.map { $0.error?.code } == [.linkedEventFailed, .linkedEventFailed, .linkedEventChainOpen])
            // Independent transfers around a failing chain still apply.
            let mixed = try await ledger.submit(
                [TransferRequest(id: .random(), action: .post(debit: buyer.id, credit: seller.id, amount: 1, asset: usd.code))]
                    + split(1, lastAmount: 99_999)
                    + [TransferRequest(id: .random(), action: .post(debit: buyer.id, credit: seller.id, amount: 2, asset: usd.code))]
            )
            #expect(mixed.map { $0.transfer != nil } == [true, false, false, false, true])
            #expect(try await ledger.balance(buyer).available == 497)
            try await ledger.expectVerified()
        }
    }

    @Test("a batch of 8,000 transfers returns one result each, in order", arguments: TestBackend.enabled)
    func largeBatch(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let source = try await ledger.makeWallet(usd)
            var sinks: [Account] = []
            for _ in 0..<10 { sinks.append(try await ledger.makeWallet(usd)) }
            try await ledger.mint(7_000, of: usd, to: source)
            // 8,000 transfers of 1 from a wallet holding 7,000: exactly the first 7,000 succeed.
            let requests = (0..<8_000).map { index in
                TransferRequest(id: .random(), action: .post(debit: source.id, credit: sinks[index % 10].id, amount: 1, asset: usd.code))
            }
            let results = try await ledger.submit(requests)
            #expect(results.count == 8_000)
            #expect(results.prefix(7_000).allSatisfy { $0.transfer != nil })
            #expect(results.suffix(1_000).allSatisfy { $0.error?.code == .exceedsCredits })
            for (request, result) in zip(requests, results).prefix(7_000) { #expect(result.transfer?.id == request.id) }
            #expect(try await ledger.balance(source).available == 0)
            let tooMany = Array(repeating: requests[0], count: 10_001)
            await #expect(throws: TransferError(.batchTooLarge, "")) { try await ledger.submit(tooMany) }
            try await ledger.expectVerified()
        }
    }

    @Test("every change appends its event in the outbox, in order", arguments: TestBackend.enabled)
    func outbox(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let a = try await ledger.makeWallet(usd)
            let b = try await ledger.makeWallet(usd)
            try await ledger.mint(50, of: usd, to: a)
            let holdID = TransferID.random()
            _ = try await ledger.submit(
                TransferRequest(id: holdID, action: .hold(debit: a.id, credit: b.id, amount: 20, asset: usd.code, timeoutSeconds: 0))
            )
            _ = try await ledger.submit(TransferRequest(id: .random(), action: .voidPending(pendingID: holdID)))
            // A refused transfer appends nothing.
            _ = try await ledger.submit(TransferRequest(id: .random(), action: .post(debit: a.id, credit: b.id, amount: 999, asset: usd.code)))
            let events = try await ledger.database.read { try EventLog.read(after: 0, limit: 100, on: $0) }
            #expect(
                events.map(\.type) == [
                    "ledger.asset.created", "ledger.account.created", "ledger.account.created", "ledger.account.created",
                    "ledger.transfer.posted", "ledger.transfer.pending", "ledger.transfer.pending_voided",
                ]
            )
            #expect(events.map(\.sequence) == Array(1...7))
            #expect(events[5].subject == holdID.description)
            #expect(events[4].data.contains("\"amount\":\"50\""))
        }
    }
}
