import ArgumentParser
import Foundation
import HubKernel
import HubServer

#if canImport(Glibc)
    import Glibc
#endif

struct Secrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the secrets vault: rotate its key-encryption key or the JWT signing key.",
        discussion: """
            The vault's key-encryption key lives in HUB_SECRETS_KEY_FILE (default: secrets.key beside \
            the SQLite database, var/secrets.key with PostgreSQL). Back it up apart from the database: \
            without it, nothing in the vault opens.
            """,
        subcommands: [RotateKey.self, RotateJWT.self]
    )

    /// Opens the database and a prepared hub (its schema must be current) for `body`.
    static func withPreparedHub(_ options: DatabaseOptions, plugins: String?, _ body: (Hub) async throws -> Void) async throws {
        let (configuration, logger) = try Bootstrap.configure(databaseFlag: options.databaseURL, pluginsFlag: plugins)
        let pluginsFile = try PluginsFile.load(
            path: configuration.pluginsPath,
            required: configuration.pluginsPathIsExplicit,
            builtInIDs: BuiltInPlugins.all.map { $0.id }
        )
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        do {
            // The plugins are made (not run) so that the data keys they declare are part of the vault.
            let hub = try HubAssembly.make(
                database: database,
                pluginsFile: pluginsFile,
                secretsKeyFile: configuration.secretsKeyFile,
                logger: logger
            )
            try await HubAssembly.migrator(for: hub).requireCurrent(database)
            try await hub.prepare()
            try await body(hub)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}

struct RotateKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Re-seal every secret under a new key-encryption key, in one transaction.",
        discussion: """
            The new key is written to HUB_SECRETS_KEY_FILE.next, every secret is re-sealed in one \
            database transaction, and only after its commit is the new file renamed over the old one. \
            A crash before the commit leaves the old key in use; after it, the next start (of any \
            hubd command) finishes the rename. Running hubd processes follow the new key by \
            themselves. Backups taken before the rotation need the old key file.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The plugins file (overrides HUB_PLUGINS).")
    var plugins: String?

    func run() async throws {
        try await Secrets.withPreparedHub(database, plugins: plugins) { hub in
            let rotation = try await hub.secrets.rotate(afterCommit: {
                // For the crash test only: die where a crash hurts most, between commit and rename.
                if ProcessInfo.processInfo.environment["HUB_TEST_CRASH_AFTER_COMMIT"] == "1" { raise(SIGKILL) }
            })
            print(
                "rotated the secrets key \(rotation.previousKeyID) → \(rotation.keyID): \(rotation.resealed) secrets re-sealed; \(hub.secrets.keyFile) holds the new key"
            )
        }
    }
}

struct RotateJWT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-jwt",
        abstract: "Make a new JWT signing key; tokens signed by the previous one stay valid until they expire.",
        discussion: """
            New access tokens carry the new key's id (kid) in every hubd process on this database \
            within 30 s (each reloads its keys that often, and at once on a token with an unknown kid). \
            The previous key verifies for the access-token lifetime plus 30 s, and is dropped at the \
            next rotation after that.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The plugins file (overrides HUB_PLUGINS).")
    var plugins: String?

    func run() async throws {
        try await Secrets.withPreparedHub(database, plugins: plugins) { hub in
            let kid = try await hub.identity.tokens.rotateSigningKey()
            print("new JWT signing key \(kid); the previous one verifies until its tokens have expired")
        }
    }
}
