import CSodium
import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

/// Identity on a fresh migrated database, with the cheapest argon2id parameters (the suite's
/// speed, not a production setting) and a manual clock.
///
/// On PostgreSQL at most a few identity tests hold databases at once, each with one reader: the
/// suite runs its tests in parallel and a test server's `max_connections` (100 by default) is
/// shared with every other suite.
func withIdentity(
    on backend: TestBackend,
    clock: ManualClock = ManualClock(),
    configure: (inout IdentityConfiguration) -> Void = { _ in },
    _ body: (Identity) async throws -> Void
) async throws {
    let gate: TestGate? = backend == .postgres ? .postgres : nil
    await gate?.acquire()
    let test: TestDatabase
    do { test = try await TestDatabase.make(backend) } catch {
        await gate?.release()
        throw error
    }
    var failure: (any Error)?
    do {
        let database = try await Database.open(test.url, readerCount: 1)
        do {
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            var configuration = IdentityConfiguration()
            configuration.passwordParameters = .minimum
            configure(&configuration)
            let secrets = try await preparedTestVault(database, clock: clock.ledgerClock)
            defer { try? FileManager.default.removeItem(atPath: (secrets.keyFile as NSString).deletingLastPathComponent) }
            let identity = Identity(
                database: database,
                configuration: configuration,
                clock: clock.ledgerClock,
                secrets: secrets,
                logger: Logger(label: "test")
            )
            try await body(identity)
        } catch {
            failure = error
        }
        await database.close()
    } catch {
        failure = error
    }
    await test.cleanup()
    await gate?.release()
    if let failure { throw failure }
}

/// Lets at most `limit` holders through at once; the rest wait their turn.
actor TestGate {
    static let postgres = TestGate(limit: 6)

    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = limit }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

let goodPassword = "correct horse battery"

extension Identity {
    /// An admin created the CLI way, and a principal acting as them.
    func makeAdmin(_ email: String = "root@example.org") async throws -> (User, Principal) {
        let user = try await users.createAdmin(email: email, password: goodPassword)
        return (user, user.principal)
    }

    /// A user with `roles`, created by an admin.
    func makeUser(_ email: String, roles: Set<Role>, by creator: Principal) async throws -> User {
        try await users.create(NewUser(email: email, displayName: "Test \(email)", roles: roles, password: goodPassword), by: creator)
    }

    /// Rows in `table`.
    func count(_ table: StaticString) async throws -> Int64 {
        try await database.read { try $0.queryFirst("SELECT count(*) AS n FROM \(raw: table)")!.int("n") }
    }

    /// Events of `type`, oldest first.
    func events(_ type: String) async throws -> [EventRecord] {
        try await database.read { try EventLog.read(after: 0, limit: 10_000, on: $0) }.filter { $0.type == type }
    }

    /// Row counts of every identity table and the event log: "bad input changes nothing".
    func snapshot() async throws -> [Int64] {
        var counts: [Int64] = []
        let tables: [StaticString] = [
            "hub_users", "hub_refresh_tokens", "hub_api_keys", "hub_wallet_challenges", "hub_wallet_links", "hub_bootstrap_tokens", "hub_events",
        ]
        for table in tables {
            counts.append(try await count(table))
        }
        return counts
    }
}

extension User {
    /// A principal for this user as an access token would give it.
    var principal: Principal { Principal(userID: id, roles: roles, credential: .accessToken(tokenID: "test"), scopes: nil) }
}

/// Expects `body` to throw an ``IdentityError`` with `code`.
func expectIdentityError<R>(
    _ code: IdentityError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as IdentityError {
        #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
