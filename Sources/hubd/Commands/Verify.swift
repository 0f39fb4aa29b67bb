import ArgumentParser
import HubKernel
import HubLocalChain
import HubServer

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the ledger's invariants; exit 1 with a report when one fails.",
        discussion: """
            Checks that per asset all balances sum to zero, that no account breaks its balance flag,
            that every transfer has exactly one event and increasing timestamps, and that every
            account's balances equal the replay of its transfers. Where the local chain rail has run, it
            also checks every chain: each account's balance equals its ledger account's, the balances
            sum to what the chain's asset has issued, and the blocks form one signed hash chain whose
            head commits to the current state.
            """
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let (configuration, _) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        var report: VerificationReport
        let chains: LocalChainVerifier.Report?
        do {
            try await Bootstrap.migrator.requireCurrent(database)
            report = try await LedgerVerifier.verify(database)
            chains = try await LocalChainVerifier.verify(database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
        if let chains {
            report.problems += chains.problems
        }
        print(report)
        if let chains {
            print(
                "local chains: \(chains.chains), accounts: \(chains.accounts), blocks: \(chains.blocks)"
                    + (chains.problems.isEmpty ? ", all match the ledger" : "")
            )
        }
        if !report.passed { throw ExitCode(1) }
    }
}
