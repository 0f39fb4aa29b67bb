import Foundation
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubKernel

@Suite("Idempotency-Key", .timeLimit(.minutes(1)))
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

    @Test("a key still running answers 409; a key whose holder died is taken over after the lock timeout", arguments: TestBackend.enabled)
    func inFlight(backend: TestBackend) async throws {
        try await withDatabase(on: backend) { database in
            try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
            let clock = ManualClock()
            var configuration = IdempotencyConfiguration()
            configuration.lockTimeout = .seconds(60)
            let store = IdempotencyStore(database: database, clock: clock.ledgerClock, configuration: configuration)
            let hash = [UInt8](repeating: 7, count: 32)
            #expect(try await store.claim(scope: "user:a", key: "k", requestHash: hash) == .proceed)
            #expect(try await store.claim(scope: "user:a", key: "k", requestHash: hash) == .inFlight)
            #expect(try await store.claim(scope: "user:a", key: "k", requestHash: [UInt8](repeating: 8, count: 32)) == .mismatch)
            clock.advance(seconds: 61)
            #expect(try await store.claim(scope: "user:a", key: "k", requestHash: hash) == .proceed)
            try await store.complete(
                scope: "user:a",
                key: "k",
                response: .init(status: 201, contentType: "application/json", location: nil, body: [1])
            )
            #expect(
                try await store.claim(scope: "user:a", key: "k", requestHash: hash)
                    == .replay(.init(status: 201, contentType: "application/json", location: nil, body: [1]))
            )
            // Retained for the retention period, then expired.
            clock.advance(seconds: 24 * 3600 + 1)
            #expect(try await store.expire() == 1)
            #expect(try await store.claim(scope: "user:a", key: "k", requestHash: hash) == .proceed)
        }
    }

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
            #expect(try await LedgerAPITests.available(client, bobWallet) == "10")
        }
    }
}
