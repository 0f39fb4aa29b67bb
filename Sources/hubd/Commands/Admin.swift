import ArgumentParser
import Foundation
import HubKernel
import HubServer

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage administrators.",
        subcommands: [CreateAdmin.self]
    )
}

struct CreateAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an administrator (applies pending kernel migrations first).",
        // --password-stdin is a flag (it takes no value) but it is required: say so in the usage,
        // which would otherwise show it in brackets like the optional ones.
        usage: "hubd admin create --email <email> --password-stdin [--display-name <name>] [--database-url <url>]",
        discussion: """
            The password is read from standard input so that it stays out of the shell history and
            the process list:  printf '%s' "$PASSWORD" | hubd admin create --email a@example.org --password-stdin
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The administrator's email address.")
    var email: String

    @Option(help: "The name shown in the console.")
    var displayName = "Administrator"

    @Flag(help: "Read the password from standard input (required).")
    var passwordStdin = false

    func run() async throws {
        guard passwordStdin else {
            throw ValidationError("pass --password-stdin and the password on standard input")
        }
        var password = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        // One trailing newline is what `echo` adds; anything else is part of the password.
        if password.hasSuffix("\r\n") { password.removeLast(2) } else if password.hasSuffix("\n") { password.removeLast() }
        let (configuration, logger) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        let database = try await Database.open(configuration.databaseURL, readerCount: 1)
        do {
            _ = try await Bootstrap.migrator.migrate(database)
            // Creating an admin signs no token, so the vault is not opened (its key file not read).
            let secrets = SecretsVault(database: database, keyFile: configuration.secretsKeyFile, logger: logger)
            let identity = Identity(database: database, secrets: secrets, logger: logger)
            let user = try await identity.users.createAdmin(email: email, password: password, displayName: displayName)
            print("created admin \(user.email ?? email) (id \(user.id))")
        } catch let error as IdentityError {
            await database.close()
            throw ValidationError("\(error.code): \(error.message)")
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
