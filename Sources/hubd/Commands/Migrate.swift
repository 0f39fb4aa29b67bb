import ArgumentParser
import HubKernel
import HubServer

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the database migrations this hubd knows (or, with --status, list the pending ones)."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Only report which migrations are pending; change nothing.")
    var status = false

    @Option(help: "The plugins file whose enabled plugins' migrations to apply too (overrides HUB_PLUGINS).")
    var plugins: String?

    func run() async throws {
        let (configuration, logger) = try Bootstrap.configure(databaseFlag: database.databaseURL, pluginsFlag: plugins)
        let pluginsFile = try PluginsFile.load(
            path: configuration.pluginsPath,
            required: configuration.pluginsPathIsExplicit,
            builtInIDs: BuiltInPlugins.all.map { $0.id }
        )
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        do {
            let hub = try HubAssembly.make(database: database, pluginsFile: pluginsFile, secretsKeyFile: configuration.secretsKeyFile, logger: logger)
            let migrator = HubAssembly.migrator(for: hub)
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
