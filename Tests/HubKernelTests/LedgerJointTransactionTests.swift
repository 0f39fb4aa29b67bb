import HubKernel
import HubTestSupport
import Testing

/// `Ledger.write` under load and with holds (the basic commit/rollback cases are in
/// LedgerTransactionTests).
@Suite("Ledger joint transactions (races, holds)", .timeLimit(.minutes(4)))
struct LedgerJointTransactionTests {
    struct Abort: Error {}

    private static func makeTable(_ ledger: Ledger) async throws {
        try await ledger.database.write { connection in
            try connection.execute("CREATE TABLE joint_notes (id TEXT PRIMARY KEY, transfer_id TEXT NOT NULL)")
        }
    }

    private static func notes(_ ledger: Ledger) async throws -> Int64 {
        try await ledger.database.read { connection in
            try connection.queryFirst("SELECT COUNT(*) AS n FROM joint_notes")!.int("n")
        }
    }

    @Test("a hold placed and posted in two joint transactions; its status is readable inside", arguments: TestBackend.enabled)
    func holdThenPost(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(1_000, of: usd, to: alice)
            let holdID = TransferID.random()
            let held = try await ledger.write { tx in
                _ = try tx.submit(
                    TransferRequest(id: holdID, action: .hold(debit: alice.id, credit: bob.id, amount: 300, asset: usd.code, timeoutSeconds: 60))
                )
                return try tx.pendingStatus(holdID)?.state
            }
            #expect(held == .pending)
            #expect(try await ledger.balance(alice).available == 700)
            let posted = try await ledger.write { tx in
                _ = try tx.submit(TransferRequest(id: .random(), action: .postPending(pendingID: holdID, amount: nil)))
                return try tx.pendingStatus(holdID)?.state
            }
            #expect(posted == .posted)
            #expect(try await ledger.balance(bob).available == 300)
            try await ledger.expectVerified()
        }
    }

    @Test("joint transactions interleaved with plain submits on one account never lose a unit", arguments: TestBackend.enabled)
    func concurrentWithSubmits(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            // 150 attempts of one unit each from an account holding 100: exactly 100 succeed,
            // whichever path they took; every failed joint attempt throws and leaves no row.
            let outcomes = try await withThrowingTaskGroup(of: (joint: Bool, ok: Bool).self) { group in
                for index in 0..<150 {
                    group.addTask {
                        let request = TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 1, asset: usd.code))
                        if index.isMultiple(of: 2) {
                            return (false, try await ledger.submit(request).transfer != nil)
                        }
                        do {
                            try await ledger.write { tx in
                                guard try tx.submit(request).transfer != nil else { throw Abort() }
                                try tx.connection.execute(
                                    "INSERT INTO joint_notes (id, transfer_id) VALUES (\("n\(index)"), \(request.id.description))"
                                )
                            }
                            return (true, true)
                        } catch is Abort {
                            return (true, false)
                        }
                    }
                }
                return try await group.reduce(into: [(joint: Bool, ok: Bool)]()) { $0.append($1) }
            }
            let succeeded = outcomes.filter(\.ok).count
            // Each joint success left its row; each joint failure rolled back with its transfer.
            #expect(try await Self.notes(ledger) == Int64(outcomes.filter { $0.joint && $0.ok }.count))
            #expect(succeeded == 100)
            #expect(try await ledger.balance(bob).available == 100)
            #expect(try await ledger.balance(alice).available == 0)
            try await ledger.expectVerified()
        }
    }
}
