import Foundation
import HubKernel
import HubTestSupport
import Logging
import Synchronization
import Testing

/// Runs the built `hubd` binary as a user would and checks exit codes and messages.
@Suite("hubd command line", .timeLimit(.minutes(3)))
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
        let run = try SpawnedChild.run(
            Self.hubdPath,
            arguments,
            environment: SpawnedChild.inheritedEnvironment.merging(environment) { $1 },
            input: input
        )
        guard case .exited(let status) = run.termination else { return Run(status: -1, output: run.output) }
        return Run(status: status, output: run.output)
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
                try connection.execute("UPDATE ledger_accounts SET credits_posted = \(UInt128(100)) WHERE id = \(wallet.id)")
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
            let secrets = try await preparedTestVault(database)
            defer { try? FileManager.default.removeItem(atPath: (secrets.keyFile as NSString).deletingLastPathComponent) }
            let identity = Identity(database: database, secrets: secrets, logger: Logger(label: "test"))
            let signedIn = try await identity.users.login(email: "root@example.test", password: "long enough password")
            #expect(signedIn.user.roles == [.admin])
        }
    }

    @Test(
        "serve on a fresh database prints a bootstrap token that makes the first admin, serves the API, and on SIGTERM turns not ready, then stops cleanly"
    )
    func serveLifecycle() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = Int.random(in: 20_000...40_000)
        var environment = SpawnedChild.inheritedEnvironment.merging(
            ["HUB_DATABASE_URL": "sqlite:\(folder.path)/hub.sqlite", "HUB_DRAIN_SECONDS": "3"]
        ) { $1 }
        environment["HUB_PLUGINS"] = nil  // the default plugins.json (absent here) means none
        let process = try SpawnedChild.start(
            Self.hubdPath,
            ["serve", "--listen", "127.0.0.1:\(port)"],
            environment: environment,
            standardError: .discarded,
            directory: FileManager.default.temporaryDirectory.path
        )
        let collected = Mutex("")
        // Read on the handle's own queue: a blocking read here could outlive the time limit.
        process.output.readabilityHandler = { handle in
            let chunk = handle.readChunkRetryingInterrupts()
            collected.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
        }
        defer {
            process.output.readabilityHandler = nil
            process.terminate(SIGKILL)
            process.wait()
        }

        // The token is on stdout once the server listens (never before the port is bound).
        let deadline = ContinuousClock.now + .seconds(30)
        while !collected.withLock({ $0.contains("hubb_") }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let printed = collected.withLock { $0 }
        let token = try #require(
            printed.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" && $0 != "-" }).first { $0.hasPrefix("hubb_") }
        )

        /// `retrying`: until the server answers (curl also retries a 503, so not for readiness).
        func curl(_ arguments: [String], retrying: Bool = true) throws -> String {
            let retries = retrying ? ["--retry", "20", "--retry-connrefused", "--retry-delay", "1"] : []
            let arguments = ["-s", "--max-time", "10"] + retries + ["-w", "\n%{http_code}"] + arguments
            return try SpawnedChild.run("/usr/bin/curl", arguments).output
        }
        let base = "http://127.0.0.1:\(port)"
        #expect(try curl(["\(base)/readyz"]).hasSuffix("200"))
        let bootstrap = try curl([
            "-X", "POST", "\(base)/v1/auth/bootstrap", "-H", "Content-Type: application/json",
            "-d", #"{"token":"\#(token)","email":"first@example.test","password":"a long enough password"}"#,
        ])
        #expect(bootstrap.hasSuffix("201"), "\(bootstrap)")
        #expect(bootstrap.contains("access_token"))
        #expect(try curl(["\(base)/v1/wallets/me"]).hasSuffix("401"))
        #expect(try curl(["\(base)/metrics"]).contains("hub_http_requests_total"))

        process.terminate()  // SIGTERM: graceful shutdown of the server and every service
        // First the drain: readiness fails while the server still answers, for HUB_DRAIN_SECONDS.
        var drained = ""
        let drainBy = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < drainBy {
            drained = try curl(["\(base)/readyz"], retrying: false)
            if drained.hasSuffix("503") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(drained.hasSuffix("503") && drained.contains("draining"), "\(drained)")
        let stopBy = ContinuousClock.now + .seconds(20)
        while process.ended == nil, ContinuousClock.now < stopBy { try await Task.sleep(for: .milliseconds(50)) }
        #expect(process.ended == .exited(0), "hubd did not exit cleanly within 20 s of SIGTERM: \(String(describing: process.ended))")
    }

    @Test("#14 serve on a busy port exits with a clear message, and announces nothing first")
    func busyPort() throws {
        // Hold a loopback port, as another server would.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hubd-busy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plugins = folder.appendingPathComponent("plugins.json").path
        #expect(FileManager.default.createFile(atPath: plugins, contents: Data(#"{"plugins": []}"#.utf8)))
        let run = try hubd(
            ["serve", "--listen", "127.0.0.1:\(port)", "--plugins", plugins],
            environment: ["HUB_DATABASE_URL": "sqlite:\(folder.path)/hub.sqlite"]
        )
        #expect(run.status != 0)
        #expect(run.output.contains("already in use"), "\(run.output)")
        #expect(!run.output.contains("hubb_"), "a bootstrap token was printed for a hub that never served")
        #expect(!run.output.contains("serving"))
    }

    @Test("#18 help and version say what a user needs: the key file, every schema, the required --password-stdin")
    func helpAndVersion() throws {
        let help = try hubd(["--help"], environment: [:])
        #expect(help.output.contains("HUB_LOCALCHAIN_KEY_FILE") && help.output.contains("HUB_WEBHOOK_ALLOW_PRIVATE"), "\(help.output)")
        let version = try hubd(["version"], environment: [:])
        for group in ["kernel", "ble-sessions", "localchain"] {
            #expect(version.output.contains("schema \(group):"), "\(version.output)")
        }
        let create = try hubd(["admin", "create", "--help"], environment: [:])
        #expect(create.output.contains("--password-stdin [--display-name"), "\(create.output)")
        #expect(!create.output.contains("[--password-stdin]"))
    }
}
