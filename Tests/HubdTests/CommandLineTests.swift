import Foundation
import HubKernel
import Logging
import Testing

/// Runs the built `hubd` binary as a user would and checks exit codes and messages.
@Suite("hubd command line", .timeLimit(.minutes(1)))
struct CommandLineTests {
    /// `hubd` is built beside the test bundle (the test target depends on it).
    static var hubdPath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("hubd").path
    }

    struct Run {
        var status: Int32
        var output: String
    }

    func hubd(_ arguments: [String], environment: [String: String], input: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.hubdPath)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    func withScratchDatabase(_ body: (String, Database) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-cli-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("hub.sqlite").path
        let database = try await Database.open(.sqlite(path: path))
        do {
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            try await body("sqlite:\(path)", database)
        } catch {
            await database.close()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        await database.close()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("verify passes on a sound ledger and exits 1 with a report on a corrupted balance")
    func verify() async throws {
        try await withScratchDatabase { url, database in
            let ledger = Ledger(database: database, logger: Logger(label: "test"))
            let usd = try #require(try await ledger.createAsset(NewAsset(code: AssetCode("USD")!, scale: 2, name: "dollar")).value)
            let wallet = try #require(try await ledger.createAccounts([NewAccount(id: .random(), asset: usd.code, owner: .user("a"))])[0].value)

            let sound = try hubd(["verify"], environment: ["HUB_DATABASE_URL": url])
            #expect(sound.status == 0, "\(sound.output)")
            #expect(sound.output.contains("all ledger invariants hold"))

            // Money from nowhere: a balance no transfer explains.
            try await database.write { connection in
                try connection.execute(
                    "UPDATE ledger_accounts SET credits_posted = $1 WHERE id = $2",
                    [.uint128(100), .bytes(wallet.id.rawValue.bigEndianBytes)]
                )
            }
            let corrupted = try hubd(["verify"], environment: ["HUB_DATABASE_URL": url])
            #expect(corrupted.status == 1)
            #expect(corrupted.output.contains("posted debits and credits differ"))
            #expect(corrupted.output.contains("balances differ from the replay"))
        }
    }

    @Test("serve refuses a database written by a newer hubd, naming the migration")
    func newerSchema() async throws {
        try await withScratchDatabase { url, database in
            try await database.write { connection in
                try connection.execute(
                    "INSERT INTO hub_migrations (group_name, position, name, applied_at) VALUES ('kernel', 99, '999_future', 'x')"
                )
            }
            let run = try hubd(["serve", "--listen", "127.0.0.1:0"], environment: ["HUB_DATABASE_URL": url])
            #expect(run.status != 0)
            #expect(run.output.contains("schema_too_new"))
            #expect(run.output.contains("999_future"))
        }
    }

    @Test("a bad setting stops start-up with the variable's name", arguments: [("HUB_LISTEN", "nonsense"), ("HUB_LOG_LEVEL", "loud")])
    func badSetting(variable: String, value: String) throws {
        let run = try hubd(["serve"], environment: [variable: value, "HUB_DATABASE_URL": "sqlite:/nonexistent-dir-\(UUID().uuidString)/x.sqlite"])
        #expect(run.status != 0)
        #expect(run.output.contains("\(variable):"))
    }

    @Test("admin create reads the password from stdin, makes an admin once, and refuses weak passwords and duplicates")
    func adminCreate() async throws {
        try await withScratchDatabase { url, database in
            let environment = ["HUB_DATABASE_URL": url]
            let weak = try hubd(["admin", "create", "--email", "root@example.test", "--password-stdin"], environment: environment, input: "short\n")
            #expect(weak.status != 0)
            #expect(weak.output.contains("weak_password"), "\(weak.output)")
            let created = try hubd(
                ["admin", "create", "--email", "root@example.test", "--password-stdin"],
                environment: environment,
                input: "long enough password\n"
            )
            #expect(created.status == 0, "\(created.output)")
            #expect(created.output.contains("created admin root@example.test"))
            let again = try hubd(
                ["admin", "create", "--email", "ROOT@example.test", "--password-stdin"],
                environment: environment,
                input: "long enough password\n"
            )
            #expect(again.status != 0)
            #expect(again.output.contains("email_taken"), "\(again.output)")
            let noFlag = try hubd(["admin", "create", "--email", "x@example.test"], environment: environment)
            #expect(noFlag.status != 0)
            let identity = Identity(database: database, logger: Logger(label: "test"))
            let signedIn = try await identity.users.login(email: "root@example.test", password: "long enough password")
            #expect(signedIn.user.roles == [.admin])
        }
    }
}
