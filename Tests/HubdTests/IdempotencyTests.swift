import Foundation
import HTTPTypes
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import HubKernel

@Suite("Idempotency-Key", .timeLimit(.minutes(3)))
struct IdempotencyTests {
    @Test("same key and body replays the first response; another body is 422; nothing runs twice", arguments: TestBackend.enabled)
    func replay(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (_, aliceWallet, bobWallet) = try await LedgerAPITests.setUp(client)
            let key: HTTPFields = [.idempotencyKey: "pay-bob-1"]
            // No transfer id: without the key, a retry would pay twice.
            let pay: [String: Any] = ["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "100", "asset": "EVT"]
            var first = ""
            try await client.execute(
                uri: "/v1/ledger/transfers",
                method: .post,
                headers: LedgerAPITests.alice + jsonHeaders + key,
                body: jsonBody(pay)
            ) {
                #expect($0.status == .created)
                #expect($0.headers[.idempotencyReplayed] == nil)
                first = $0.text
            }
            try await client.execute(
                uri: "/v1/ledger/transfers",
                method: .post,
                headers: LedgerAPITests.alice + jsonHeaders + key,
                body: jsonBody(pay)
            ) {
                #expect($0.status == .created)
                #expect($0.headers[.idempotencyReplayed] == "true")
                #expect($0.text == first)
            }
            var other = pay
            other["amount"] = "101"
            try await client.execute(
                uri: "/v1/ledger/transfers",
                method: .post,
                headers: LedgerAPITests.alice + jsonHeaders + key,
                body: jsonBody(other)
            ) {
                #expect($0.status == .unprocessableContent)
                #expect($0.object["code"] as? String == "idempotency_key_reused")
            }
            // Keys belong to their caller: bob's same key is a different key.
            try await client.execute(
                uri: "/v1/ledger/transfers",
                method: .post,
                headers: LedgerAPITests.bob + jsonHeaders + key,
                body: jsonBody(["debit_account_id": bobWallet, "credit_account_id": aliceWallet, "amount": "1", "asset": "EVT"])
            ) { #expect($0.status == .created) }
            #expect(try await LedgerAPITests.available(client, bobWallet) == "99")
            // A refused request is replayed as refused (it would fail the same way again).
            let broke: HTTPFields = [.idempotencyKey: "too-much"]
            var tooMuch = pay
            tooMuch["amount"] = "999999"
            for replayed in [nil, "true"] {
                try await client.execute(
                    uri: "/v1/ledger/transfers",
                    method: .post,
                    headers: LedgerAPITests.alice + jsonHeaders + broke,
                    body: jsonBody(tooMuch)
                ) {
                    #expect($0.status == .unprocessableContent)
                    #expect($0.headers[.idempotencyReplayed] == replayed)
                }
            }
            try await client.execute(
                uri: "/v1/ledger/transfers",
                method: .post,
                headers: LedgerAPITests.alice + jsonHeaders + [.idempotencyKey: ""],
                body: jsonBody(pay)
            ) {
                #expect($0.status == .badRequest)
            }
        }
    }

    @Test("a key is stored complete with its reply; a second recorder gets the first reply; expired keys are free", arguments: TestBackend.enabled)
    func store(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let clock = ManualClock()
            let store = IdempotencyStore(database: database, clock: clock.ledgerClock, configuration: IdempotencyConfiguration())
            let hash = [UInt8](repeating: 7, count: 32)
            let other = [UInt8](repeating: 8, count: 32)
            let reply = HTTPReply(status: 201, contentType: "application/json", location: "/v1/x", body: [1])
            #expect(try await store.lookup(scope: "user:a", key: "k", requestHash: hash) == .fresh)
            #expect(try await store.record(scope: "user:a", key: "k", requestHash: hash, reply: reply) == .fresh)
            #expect(try await store.lookup(scope: "user:a", key: "k", requestHash: hash) == .replay(reply))
            #expect(try await store.lookup(scope: "user:a", key: "k", requestHash: other) == .mismatch)
            #expect(try await store.lookup(scope: "user:b", key: "k", requestHash: hash) == .fresh)
            // Another instance that ran the same request meanwhile: it gets the first reply.
            let second = HTTPReply(status: 201, contentType: "application/json", location: "/v1/y", body: [2])
            #expect(try await store.record(scope: "user:a", key: "k", requestHash: hash, reply: second) == .replay(reply))
            #expect(try await store.record(scope: "user:a", key: "k", requestHash: other, reply: second) == .mismatch)
            // A row left 'running' by an earlier version of the hub holds nothing: the key is free.
            try await database.write { connection in
                try connection.execute(
                    "INSERT INTO hub_idempotency_keys (scope, key, request_hash, state, created_at, locked_until) VALUES ('user:a', 'old', \(hash), 'running', 0, 0)"
                )
            }
            #expect(try await store.lookup(scope: "user:a", key: "old", requestHash: hash) == .fresh)
            #expect(try await store.record(scope: "user:a", key: "old", requestHash: hash, reply: reply) == .fresh)
            // Retained for the retention period, then free and expired.
            clock.advance(seconds: 24 * 3600 + 1)
            #expect(try await store.lookup(scope: "user:a", key: "k", requestHash: other) == .fresh)
            #expect(try await store.expire() == 2)
        }
    }

    @Test("a unit that records a key another request recorded first rolls back and replays that reply", arguments: TestBackend.enabled)
    func unitConflict(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            func claim() -> IdempotencyClaim {
                IdempotencyClaim(
                    scope: "user:alice",
                    key: "pay",
                    requestHash: [1],
                    clock: ledger.clock,
                    retention: .seconds(3600),
                    replyForError: { _ in nil }
                )
            }
            func pay() async throws -> Response {
                try await ledger.respond { unit in
                    let result = try unit.submit(
                        TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 10, asset: usd.code))
                    )
                    return HTTPReply(status: 201, contentType: "text/plain", location: nil, body: Array("paid \(result.transfer!.id)".utf8))
                }
            }
            let first = try await IdempotencyClaim.$current.withValue(claim()) { try await pay() }
            #expect(first.status == .created)
            // The same request run again by another instance, which did not see the key at first.
            await #expect {
                _ = try await IdempotencyClaim.$current.withValue(claim()) { try await pay() }
            } throws: { error in
                guard case IdempotencyConflict.replay(let reply) = error else { return false }
                return reply.status == 201 && String(decoding: reply.body, as: UTF8.self).hasPrefix("paid ")
            }
            // Its transfer was rolled back with it: bob was paid once.
            #expect(try await ledger.balance(bob).available == 10)
            try await ledger.expectVerified()
        }
    }

    @Test(
        "a reply with Cache-Control: no-store is not kept: the key stays free and a retry runs again; other replies are still replayed",
        arguments: TestBackend.enabled
    )
    func noStore(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let runs = Counter()
            let router = Router(context: HubRequestContext.self)
            router.add(middleware: AuthenticationMiddleware(authenticator: TestAuthenticator()))
            router.add(middleware: IdempotencyMiddleware(database: ledger.database, clock: ledger.clock))
            // A handler that marks its own response, one whose unit answers with a no-store reply,
            // and one whose unit records its reply before the handler marks the response.
            router.post("secret") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "text/plain", .cacheControl: "private, no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: "secret \(runs.next())"))
                )
            }
            router.post("secret-unit") { _, _ in
                let run = runs.next()
                return try await ledger.respond { _ in
                    HTTPReply(status: 200, contentType: "text/plain", location: nil, body: Array("secret \(run)".utf8), noStore: true)
                }
            }
            router.post("marked-late") { _, _ in
                let run = runs.next()
                var response = try await ledger.respond { _ in
                    HTTPReply(status: 200, contentType: "text/plain", location: nil, body: Array("secret \(run)".utf8))
                }
                response.headers[.cacheControl] = "no-store"
                return response
            }
            router.post("plain") { _, _ in "plain \(runs.next())" }
            @Sendable func rows() async throws -> [String] {
                try await ledger.database.read { connection in
                    try connection.query("SELECT key, body FROM hub_idempotency_keys ORDER BY key").map {
                        "\(try $0.text("key")): \(String(decoding: try $0.optionalBytes("body") ?? [], as: UTF8.self))"
                    }
                }
            }
            try await Application(router: router).test(.router) { client in
                let headers = bearer("alice") + [.idempotencyKey: "once"]
                for path in ["/secret", "/secret-unit", "/marked-late"] {
                    let first = try await client.execute(uri: path, method: .post, headers: headers)
                    let retry = try await client.execute(uri: path, method: .post, headers: headers)
                    #expect(first.status == .ok && retry.status == .ok, "\(path)")
                    #expect(first.headers[.cacheControl]?.contains("no-store") == true, "\(path)")
                    // The retry ran again (a new run number), and nothing of either was kept.
                    #expect(retry.headers[.idempotencyReplayed] == nil, "\(path)")
                    #expect(first.text != retry.text, "\(path)")
                    let kept = try await rows()
                    #expect(kept.isEmpty, "\(path): \(kept)")
                }
                let first = try await client.execute(uri: "/plain", method: .post, headers: headers)
                let replay = try await client.execute(uri: "/plain", method: .post, headers: headers)
                #expect(replay.headers[.idempotencyReplayed] == "true")
                #expect(replay.text == first.text)
                #expect(try await rows() == ["once: \(first.text)"])
            }
        }
    }

    @Test(
        "a route marked AnswersInUnit skips the lookup: a retry runs its handler, whose unit finds the key and replays; other routes replay without running",
        arguments: TestBackend.enabled
    )
    func answersInUnit(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let usd = try await ledger.makeAsset("USD")
            let alice = try await ledger.makeWallet(usd)
            let bob = try await ledger.makeWallet(usd)
            try await ledger.mint(100, of: usd, to: alice)
            let runs = Counter()
            @Sendable func pay(_ request: Request, _ context: HubRequestContext) async throws -> Response {
                let run = runs.next()
                // A refusal before any unit (as a scope check would be).
                if request.headers[Self.refuse] != nil { throw Problem(.forbidden, code: "refused", detail: "Refused before the unit.") }
                return try await ledger.respond { unit in
                    let result = try unit.submit(
                        TransferRequest(id: .random(), action: .post(debit: alice.id, credit: bob.id, amount: 10, asset: usd.code))
                    )
                    return HTTPReply(
                        status: 201,
                        contentType: "text/plain",
                        location: nil,
                        body: Array("run \(run) paid \(result.transfer!.id)".utf8)
                    )
                }
            }
            let router = Router(context: HubRequestContext.self)
            router.add(middleware: AuthenticationMiddleware(authenticator: TestAuthenticator()))
            router.add(middleware: IdempotencyMiddleware(database: ledger.database, clock: ledger.clock))
            router.group().add(middleware: AnswersInUnit()).post("marked", use: pay)
            router.post("unmarked", use: pay)
            try await Application(router: router).test(.router) { client in
                let headers = bearer("alice") + [.idempotencyKey: "pay-1"]
                let first = try await client.execute(uri: "/marked", method: .post, headers: headers)
                #expect(first.status == .created && first.text.hasPrefix("run 1 "))
                // The handler runs again (no lookup first); its unit finds the key, rolls back and
                // the first reply is replayed.
                let retry = try await client.execute(uri: "/marked", method: .post, headers: headers)
                #expect(retry.status == .created && retry.headers[.idempotencyReplayed] == "true" && retry.text == first.text)
                #expect(runs.next() == 3, "the retry ran the handler")
                // Refused before any unit: the key's first answer stands.
                let refused = try await client.execute(uri: "/marked", method: .post, headers: headers + [Self.refuse: "yes"])
                #expect(refused.status == .created && refused.headers[.idempotencyReplayed] == "true" && refused.text == first.text)
                #expect(try await ledger.balance(bob).available == 10, "paid once")

                // Unmarked: the lookup answers the retry without running the handler.
                let other = bearer("alice") + [.idempotencyKey: "pay-2"]
                let before = runs.next()
                let unmarked = try await client.execute(uri: "/unmarked", method: .post, headers: other)
                let replayed = try await client.execute(uri: "/unmarked", method: .post, headers: other)
                #expect(replayed.headers[.idempotencyReplayed] == "true" && replayed.text == unmarked.text)
                #expect(runs.next() == before + 2, "only the first request ran")
                #expect(try await ledger.balance(bob).available == 20)
            }
            try await ledger.expectVerified()
        }
    }

    private static let refuse = HTTPField.Name("X-Refuse")!

    @Test("two concurrent requests with one key: one runs, the other gets 409 or the replay", arguments: TestBackend.enabled)
    func race(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            let (_, aliceWallet, bobWallet) = try await LedgerAPITests.setUp(client)
            let pay = jsonBody(["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "10", "asset": "EVT"])
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/ledger/transfers",
                            method: .post,
                            headers: LedgerAPITests.alice + jsonHeaders + [.idempotencyKey: "race"],
                            body: pay
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .created || $0 == .conflict })
            #expect(statuses.contains(.created))
            #expect(try await LedgerAPITests.available(client, bobWallet) == "10")
        }
    }
}

/// Numbers the runs of a test handler, so a replay (same number) tells from a rerun.
private final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
}
