import ArgumentParser
import Foundation
import HubKernel
import HubServer
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the hub: apply pending migrations, start the ledger and serve HTTP.",
        discussion: """
            Refuses to start on a database whose schema is newer than this hubd knows.
            GET /healthz answers while the process runs; GET /readyz once the database answers.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "HOST:PORT to listen on (overrides HUB_LISTEN).")
    var listen: String?

    @Option(help: "The plugins file (overrides HUB_PLUGINS).")
    var plugins: String?

    @Flag(help: "Do not apply pending migrations; refuse to start if any are pending.")
    var noMigrate = false

    func run() async throws {
        let (configuration, logger) = try Bootstrap.configure(
            databaseFlag: database.databaseURL,
            listenFlag: listen,
            pluginsFlag: plugins
        )
        let pluginsFile = try PluginsFile.load(
            path: configuration.pluginsPath,
            required: configuration.pluginsPathIsExplicit,
            builtInIDs: BuiltInPlugins.all.map { $0.id }
        )
        // Held until the process ends: `hubd restore` refuses to replace a database a hub serves.
        let servingLock = try ServingLock.serving(configuration.databaseURL)
        defer { withExtendedLifetime(servingLock) {} }
        let database = try await Database.open(configuration.databaseURL)
        do {
            let hub = try HubAssembly.make(
                database: database,
                pluginsFile: pluginsFile,
                secretsKeyFile: configuration.secretsKeyFile,
                idempotency: configuration.idempotency,
                identityConfiguration: configuration.identity,
                webhookConfiguration: configuration.webhooks,
                devLogin: configuration.devLogin,
                drain: configuration.drain,
                logger: logger
            )
            let migrator = HubAssembly.migrator(for: hub)
            if noMigrate {
                try await migrator.requireCurrent(database)
            } else {
                for step in try await migrator.migrate(database) { logger.info("applied migration \(step)") }
            }
            try await hub.prepare()
            if configuration.devLogin {
                logger.warning("HUB_DEV_LOGIN=1: anyone who can reach this hub can sign in as any user by email")
            }
            let bootstrapToken = try await hub.identity.users.bootstrapIfNoAdmin()
            let listen = "\(configuration.listenHost):\(configuration.listenPort)"
            let enabled = pluginsFile.entries.filter(\.enabled).map(\.id)
            let app = buildApplication(configuration: configuration, hub: hub) {
                // Bound: only now tell the operator, so a busy port never prints a token or
                // "serving" for a process that is about to exit.
                if let bootstrapToken { Self.printBootstrap(token: bootstrapToken, listen: listen) }
                logger.info(
                    "hubd \(HubVersion.current) serving",
                    metadata: ["hub.database": "\(configuration.databaseURL)", "hub.listen": "\(listen)", "hub.plugins": "\(enabled)"]
                )
            }
            // The drain after the application: the group stops services in reverse order, so
            // readiness turns off first and the server stops only after the drain delay.
            let group = ServiceGroup(
                configuration: .init(
                    services: [.init(service: app), .init(service: hub.drain)],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger
                )
            )
            do {
                try await group.run()
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw ValidationError("cannot listen on \(listen): the address is already in use (another hubd, or another server, holds it)")
            }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// The one-time bootstrap token, printed (not logged: it is a credential, and a log pipeline
    /// may keep it forever) and flushed at once, since stdout is block-buffered when it is a pipe.
    static func printBootstrap(token: String, listen: String) {
        print(
            """
            No admin exists yet. Create the first one within this run with the one-time token:
              curl -X POST http://\(listen)/v1/auth/bootstrap \\
                -H 'Content-Type: application/json' \\
                -d '{"token":"\(token)","email":"you@example.org","password":"at least 10 characters"}'
            or run `hubd admin create --email you@example.org --password-stdin`.
            """
        )
        try? FileHandle.standardOutput.synchronize()
        fflush(nil)
    }
}
