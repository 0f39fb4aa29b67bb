import ArgumentParser
import HubKernel

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the database migrations this hubd knows (or, with --status, list the pending ones)."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Only report which migrations are pending; change nothing.")
    var status = false

    func run() async throws {
        let (configuration, _) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        do {
            let migrator = Bootstrap.migrator
            if status {
                let current = try await migrator.status(of: database)
                for (group, names) in current.pending.sorted(by: { $0.key < $1.key }) {
                    print("\(group): \(names.isEmpty ? "up to date" : "pending \(names.joined(separator: ", "))")")
                }
            } else {
                let applied = try await migrator.migrate(database)
                print(applied.isEmpty ? "\(configuration.databaseURL): already up to date" : applied.map { "applied \($0)" }.joined(separator: "\n"))
            }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
