import HubKernel
import HubTestSupport
import Testing

/// `Ledger.write`: a caller's rows and ledger transfers commit together or not at all.
@Suite("Ledger transactions shared with a caller", .timeLimit(.minutes(4)))
struct LedgerTransactionTests {
    static let table: SQL = "test_mirror_rows"

    static func makeTable(_ ledger: Ledger) async throws {
        try await ledger.database.write { try $0.execute("CREATE TABLE \(Self.table) (name TEXT PRIMARY KEY)") }
    }

    static func rows(_ ledger: Ledger) async throws -> [String] {
        try await ledger.database.read { try $0.query("SELECT name FROM \(Self.table) ORDER BY name").map { try $0.text("name") } }
    }

    @Test("a transfer, a new account and the caller's row commit together", arguments: TestBackend.enabled)
    func commitsTogether(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let newID = AccountID.random()
            let results = try await ledger.write { tx in
                let created = try tx.createAccounts([NewAccount(id: newID, asset: usd.code, owner: .user("u1"))])
                #expect(created.first?.value != nil)
                let transfer = try tx.submit([
                    TransferRequest(id: .random(), action: .post(debit: usd.issuanceAccountID, credit: newID, amount: 700, asset: usd.code))
                ])
                try tx.connection.execute("INSERT INTO \(Self.table) (name) VALUES (\("row-1"))")
                return transfer
            }
            #expect(results.first?.transfer?.amount == 700)
            #expect(try await ledger.account(newID)?.available == 700)
            #expect(try await Self.rows(ledger) == ["row-1"])
            #expect(try await ledger.write { try $0.accounts([newID]).first?.available } == 700)
            try await ledger.expectVerified()
        }
    }

    @Test("when the caller throws, neither its row nor the transfer nor the account remain", arguments: TestBackend.enabled)
    func rollsBackTogether(backend: TestBackend) async throws {
        struct Abort: Error {}
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let newID = AccountID.random()
            let transferID = TransferID.random()
            await #expect(throws: Abort.self) {
                try await ledger.write { tx in
                    _ = try tx.createAccounts([NewAccount(id: newID, asset: usd.code, owner: .user("u1"))])
                    _ = try tx.submit([
                        TransferRequest(id: transferID, action: .post(debit: usd.issuanceAccountID, credit: newID, amount: 5, asset: usd.code))
                    ])
                    try tx.connection.execute("INSERT INTO \(Self.table) (name) VALUES (\("row-1"))")
                    throw Abort()
                }
            }
            #expect(try await ledger.account(newID) == nil)
            #expect(try await ledger.transfer(transferID) == nil)
            #expect(try await Self.rows(ledger).isEmpty)
            try await ledger.expectVerified()
        }
    }

    @Test("a refused transfer changes nothing and the caller decides what to do", arguments: TestBackend.enabled)
    func refusedTransfer(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            try await Self.makeTable(ledger)
            let usd = try await ledger.makeAsset("USD")
            let a = try await ledger.makeWallet(usd)
            let b = try await ledger.makeWallet(usd)
            let result = try await ledger.write { tx in
                let results = try tx.submit([TransferRequest(id: .random(), action: .post(debit: a.id, credit: b.id, amount: 1, asset: usd.code))])
                try tx.connection.execute("INSERT INTO \(Self.table) (name) VALUES (\("kept"))")
                return results[0]
            }
            #expect(result.error?.code == .exceedsCredits)
            #expect(try await ledger.balance(b).available == 0)
            #expect(try await Self.rows(ledger) == ["kept"])
            try await ledger.expectVerified()
        }
    }
}
