import ArgumentParser
import HubServer

/// The payments hub's executable.
@main
struct Hubd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hubd",
        abstract: "A payments hub: a double-entry ledger, people and events, with payment rails as plugins.",
        discussion: """
            Configuration comes from the environment (flags override it):
              HUB_DATABASE_URL  sqlite:PATH (default sqlite:./var/hub.sqlite) or postgres://USER@HOST:PORT/DB
              HUB_LISTEN        HOST:PORT for HTTP (default 127.0.0.1:8080)
              HUB_PLUGINS       the plugins file (default plugins.json)
              HUB_LOG_LEVEL     trace, debug, info (default), notice, warning, error, critical
              HUB_DEV_LOGIN     1 enables POST /v1/auth/dev-login (sign in by email alone; never in production)
              HUB_IDEMPOTENCY_RETENTION_HOURS  how long Idempotency-Keys are kept (default 24)
              HUB_WEBHOOK_RETRY_SCHEDULE       waits between webhook attempts (default 5s,30s,2m,…,8h)
              HUB_WEBHOOK_ALLOW_PRIVATE        CIDRs of private webhook receivers to allow (default none)
              HUB_DRAIN_SECONDS                on SIGTERM, how long /readyz answers 503 before the server stops taking
                                               requests (default 0 on SQLite, 5 on PostgreSQL)
              HUB_SECRETS_KEY_FILE             the secrets vault's key-encryption key (default secrets.key beside the
                                               SQLite database, or var/secrets.key; created mode 600, refused if
                                               readable by others); `hubd secrets rotate` replaces it
              HUB_LOCALCHAIN_KEY_FILE          the local chain's key file of before the vault (default var/localchain.key,
                                               or the rail's key_file): adopted once into the vault, then only checked

            The first admin: `hubd admin create --email E --password-stdin`, or the one-time bootstrap
            token `hubd serve` prints while no admin exists (POST /v1/auth/bootstrap).

            Start with `hubd serve`: it creates the SQLite database, applies migrations and listens.
            """,
        version: HubVersion.current,
        subcommands: [
            Serve.self, Migrate.self, Verify.self, Backup.self, Restore.self, Admin.self, Secrets.self, Wallet.self, EVMCommand.self, Version.self,
        ]
    )
}

/// Options every command that opens the database takes.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "The database (overrides HUB_DATABASE_URL).")
    var databaseURL: String?
}
