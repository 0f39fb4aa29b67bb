import HubKernel
import HubTestSupport
import Synchronization
import Testing

/// Thousands of random transfers from many concurrent tasks: overdraft attempts, holds that are
/// posted, voided or left to expire, linked chains with failing members, retries. Afterwards the
/// ledger must verify, no wallet may be negative, and money must be conserved.
@Suite("Ledger under random concurrent load", .timeLimit(.minutes(5)))
struct LedgerRandomizedTests {
    static let tasks = 16
    static let operationsPerTask = 120

    @Test("random concurrent transfers keep every invariant", arguments: TestBackend.enabled)
    func randomLoad(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withLedger(on: backend, clock: clock.ledgerClock) { ledger in
            let usd = try await ledger.makeAsset("USD")
            var wallets: [Account] = []
            for index in 0..<12 { wallets.append(try await ledger.makeWallet(usd, owner: "w\(index)")) }
            // A liability-side account: it may be debited freely but never credited past its debits.
            let escrow = try await ledger.makeWallet(usd, owner: "escrow", flags: [.creditsMustNotExceedDebits])
            for wallet in wallets { try await ledger.mint(10_000, of: usd, to: wallet) }
            let minted: UInt128 = 10_000 * UInt128(wallets.count)
            let walletIDs = wallets.map(\.id) + [escrow.id]
            let created = CreatedCounter()

            try await withThrowingTaskGroup(of: Void.self) { group in
                for seed in 0..<Self.tasks {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
                        var holds: [TransferID] = []
                        var sent: [[TransferRequest]] = []
                        for _ in 0..<Self.operationsPerTask {
                            let batch = Self.randomBatch(&random, wallets: walletIDs, asset: usd.code, holds: &holds, sent: sent)
                            let results = try await ledger.submit(batch)
                            #expect(results.count == batch.count)
                            created.add(results.filter { if case .created = $0 { true } else { false } }.count)
                            sent.append(batch)
                        }
                    }
                }
                // Time moves on while the load runs, so some holds expire under it.
                group.addTask {
                    for _ in 0..<40 {
                        clock.advance(seconds: 1)
                        try await ledger.expireDue()
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                try await group.waitForAll()
            }
            clock.advance(seconds: 3_600)
            while try await ledger.expireDue() > 0 {}

            let report = try await LedgerVerifier.verify(ledger.database)
            #expect(report.passed, "\(report)")
            #expect(report.holdsPending == 0 || report.holdsPending > 0)
            let accounts = try await ledger.accounts(walletIDs)
            var circulating: UInt128 = 0
            for account in accounts {
                if account.flags.contains(.debitsMustNotExceedCredits) {
                    #expect(account.debitsPosted + account.debitsPending <= account.creditsPosted)
                }
                if account.flags.contains(.creditsMustNotExceedDebits) {
                    #expect(account.creditsPosted + account.creditsPending <= account.debitsPosted)
                }
                circulating = circulating &+ account.creditsPosted &- account.debitsPosted
            }
            #expect(circulating == minted, "money was created or destroyed")
            // Every transfer acknowledged as created is stored once: setup transfers plus the load's.
            #expect(report.transfers == wallets.count + created.value)
            #expect(created.value > 1_000, "the load should have moved money")
        }
    }

    static func randomBatch(
        _ random: inout SplitMix64,
        wallets: [AccountID],
        asset: AssetCode,
        holds: inout [TransferID],
        sent: [[TransferRequest]]
    ) -> [TransferRequest] {
        func pair() -> (AccountID, AccountID) {
            let a = wallets[Int(random.next() % UInt64(wallets.count))]
            var b = wallets[Int(random.next() % UInt64(wallets.count))]
            while b == a { b = wallets[Int(random.next() % UInt64(wallets.count))] }
            return (a, b)
        }
        // Mostly small amounts, sometimes more than any wallet holds (an overdraft attempt).
        func amount() -> UInt128 { random.next() % 10 == 0 ? UInt128(random.next() % 50_000 + 1) : UInt128(random.next() % 300 + 1) }

        switch random.next() % 10 {
        case 0, 1, 2:
            let (a, b) = pair()
            return [TransferRequest(id: .random(), action: .post(debit: a, credit: b, amount: amount(), asset: asset))]
        case 3:
            let (a, b) = pair()
            let id = TransferID.random()
            holds.append(id)
            let timeout = UInt32(random.next() % 6)
            return [TransferRequest(id: id, action: .hold(debit: a, credit: b, amount: amount(), asset: asset, timeoutSeconds: timeout))]
        case 4:
            guard let hold = holds.randomElement(using: &random) else { return [] }
            let partial: UInt128? = random.next() % 2 == 0 ? nil : UInt128(random.next() % 200 + 1)
            return [TransferRequest(id: .random(), action: .postPending(pendingID: hold, amount: partial))]
        case 5:
            guard let hold = holds.randomElement(using: &random) else { return [] }
            return [TransferRequest(id: .random(), action: .voidPending(pendingID: hold))]
        case 6, 7:
            // A linked chain of 2 to 4 legs; large amounts make some legs fail.
            let legs = Int(random.next() % 3) + 2
            return (0..<legs).map { index in
                let (a, b) = pair()
                return TransferRequest(id: .random(), action: .post(debit: a, credit: b, amount: amount(), asset: asset), linked: index < legs - 1)
            }
        case 8:
            // A retry of an earlier batch: every member must come back as exists or its old failure.
            return sent.randomElement(using: &random) ?? []
        default:
            // A plain batch of independent transfers.
            return (0..<Int(random.next() % 8 + 2)).map { _ in
                let (a, b) = pair()
                return TransferRequest(id: .random(), action: .post(debit: a, credit: b, amount: amount(), asset: asset))
            }
        }
    }
}

/// A small deterministic generator, so a failing run can be reproduced from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Counts transfers acknowledged as created across the load's tasks.
final class CreatedCounter: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
