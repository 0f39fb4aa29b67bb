import HubKernel
import HubServer
import Logging

/// What every command does first: read the configuration and set up logging.
enum Bootstrap {
    static func configure(
        databaseFlag: String? = nil,
        listenFlag: String? = nil,
        pluginsFlag: String? = nil
    ) throws -> (HubConfiguration, Logger) {
        let configuration = try HubConfiguration.load(databaseFlag: databaseFlag, listenFlag: listenFlag, pluginsFlag: pluginsFlag)
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return (configuration, Logger(label: "hubd"))
    }

    /// The kernel's migrations (plugins add theirs through ``HubAssembly/migrator(for:)``).
    static var migrator: Migrator {
        Migrator([(group: .kernel, migrations: Ledger.migrations)])
    }
}
