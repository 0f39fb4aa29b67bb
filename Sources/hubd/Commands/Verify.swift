import ArgumentParser
import HubKernel

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the ledger's invariants; exit 1 with a report when one fails.",
        discussion: """
            Checks that per asset all balances sum to zero, that no account breaks its balance flag,
            that every transfer has exactly one event and increasing timestamps, and that every
            account's balances equal the replay of its transfers.
            """
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let (configuration, _) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        let report: VerificationReport
        do {
            try await Bootstrap.migrator.requireCurrent(database)
            report = try await LedgerVerifier.verify(database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
        print(report)
        if !report.passed { throw ExitCode(1) }
    }
}
