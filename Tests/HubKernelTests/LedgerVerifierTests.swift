import HubKernel
import HubTestSupport
import Testing

/// `LedgerVerifier` pages through accounts (and transfers, and holds): every page is checked,
/// whatever the page size, and a problem on a later page is found like one on the first.
@Suite("Ledger verifier", .timeLimit(.minutes(4)))
struct LedgerVerifierTests {
    /// Page sizes that split the test ledger's 25 accounts unevenly, evenly, and not at all.
    static let pageSizes = [1, 4, 5, 1_000]

    /// Two assets, 23 wallets (25 accounts with the issuance ones), posts between wallets and
    /// holds in every state: one pending, one posted in part, one voided.
    static func makeLedger(_ ledger: Ledger) async throws -> (usd: Asset, wallets: [Account]) {
        let usd = try await ledger.makeAsset("USD")
        let eur = try await ledger.makeAsset("EUR")
        var wallets: [Account] = []
        for index in 0..<23 {
            let wallet = try await ledger.makeWallet(index.isMultiple(of: 3) ? eur : usd, owner: "u-\(index)")
            try await ledger.mint(1_000 + UInt128(index), of: index.isMultiple(of: 3) ? eur : usd, to: wallet)
            wallets.append(wallet)
        }
        let usdWallets = wallets.filter { $0.asset == usd.code }
        for (from, to) in zip(usdWallets, usdWallets.dropFirst()) {
            let moved = try await ledger.submit(
                TransferRequest(id: .random(), action: .post(debit: from.id, credit: to.id, amount: 7, asset: usd.code))
            )
            #expect(moved.transfer != nil)
        }
        var holds: [TransferID] = []
        for wallet in usdWallets.prefix(3) {
            let hold = try await ledger.submit(
                TransferRequest(
                    id: .random(),
                    action: .hold(debit: wallet.id, credit: usdWallets.last!.id, amount: 50, asset: usd.code, timeoutSeconds: 0)
                )
            )
            holds.append(try #require(hold.transfer?.id))
        }
        #expect(try await ledger.submit(TransferRequest(id: .random(), action: .postPending(pendingID: holds[1], amount: 20))).transfer != nil)
        #expect(try await ledger.submit(TransferRequest(id: .random(), action: .voidPending(pendingID: holds[2]))).transfer != nil)
        return (usd, wallets)
    }

    @Test("a ledger of more accounts than a page verifies at every page size, counting everything once", arguments: TestBackend.enabled)
    func manyPages(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            _ = try await Self.makeLedger(ledger)
            for size in Self.pageSizes {
                let report = try await LedgerVerifier.verify(ledger.database, pageSize: size, accountPageSize: size)
                #expect(report.passed, "page size \(size): \(report)")
                #expect(report.assets == 2)
                #expect(report.accounts == 25, "page size \(size)")
                // 23 mints, 14 posts between the 15 USD wallets, 3 holds, a post and a void of two.
                #expect(report.transfers == 23 + 14 + 3 + 2, "page size \(size)")
                #expect(report.holdsPending == 1, "page size \(size)")
            }
        }
    }

    @Test("a balance broken on a later page is found, and no other account is named", arguments: TestBackend.enabled)
    func problemOnLaterPage(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let (_, wallets) = try await Self.makeLedger(ledger)
            let last = try #require(wallets.max { $0.id < $1.id })
            // Money from nowhere: a balance no transfer explains, on the wallet read last (a later page
            // at every size below 25).
            try await ledger.database.write { connection in
                try connection.execute(
                    "UPDATE ledger_accounts SET credits_posted = $1 WHERE id = $2",
                    [.uint128(1_000_000), .bytes(last.id.rawValue.bigEndianBytes)]
                )
            }
            for size in Self.pageSizes {
                let report = try await LedgerVerifier.verify(ledger.database, pageSize: size, accountPageSize: size)
                #expect(
                    report.problems.sorted() == [
                        "account \(last.id): balances differ from the replay of its transfers",
                        "asset \(last.asset): posted debits and credits differ",
                    ],
                    "page size \(size): \(report)"
                )
            }
        }
    }
}
