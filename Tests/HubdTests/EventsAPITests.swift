import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("events API", .timeLimit(.minutes(4)))
struct EventsAPITests {
    @Test("the log pages in sequence order with a type filter; members may not read it", arguments: TestBackend.enabled)
    func list(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            _ = try await LedgerAPITests.setUp(client)
            var sequences: [Int] = []
            var types: [String] = []
            var cursor = "0"
            while true {
                var next: String?
                try await client.execute(uri: "/v1/events?after=\(cursor)&limit=2", method: .get, headers: LedgerAPITests.admin) { response in
                    #expect(response.status == .ok)
                    let json = try response.json()
                    for event in try #require(json["data"] as? [[String: Any]]) {
                        #expect(event["specversion"] as? String == "1.0")
                        sequences.append(try #require(event["sequence"] as? Int))
                        types.append(try #require(event["type"] as? String))
                    }
                    next = json["next_cursor"] as? String
                }
                guard let next else { break }
                cursor = next
            }
            #expect(sequences == Array(1...sequences.count))
            #expect(types.contains("ledger.asset.created"))
            #expect(types.filter { $0 == "ledger.transfer.posted" }.count == 1)

            try await client.execute(uri: "/v1/events?type=ledger.transfer.*", method: .get, headers: LedgerAPITests.admin) { response in
                let data = try #require(try response.json()["data"] as? [[String: Any]])
                #expect(data.map { $0["type"] as? String } == ["ledger.transfer.posted"])
            }
            try await client.execute(uri: "/v1/events?type=Not A Type", method: .get, headers: LedgerAPITests.admin) {
                #expect($0.status == .unprocessableContent)
            }
            try await client.execute(uri: "/v1/events", method: .get, headers: LedgerAPITests.alice) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/v1/events/stream", method: .get, headers: LedgerAPITests.alice) { #expect($0.status == .forbidden) }
        }
    }

    /// How long each stream connection reads. Generous: on a loaded 2-core CI machine the three
    /// transfers after the connection opens took longer than the 8 s this once was, and the last
    /// event fell outside the window (a flake, not a gap: the resume check below saw it).
    static let streamWindow = 20

    @Test("the stream resumes after Last-Event-ID with no gap and no duplicate, live events included", arguments: TestBackend.enabled)
    func streamResumes(backend: TestBackend) async throws {
        try await withTestHub(on: backend, testing: .live) { hub, client in
            let port = try #require(client.port)
            let (_, aliceWallet, bobWallet) = try await LedgerAPITests.setUp(client)
            let before = try await hub.database.read { try EventLog.lastSequence(on: $0) }
            // A first connection reads from 2, a second resumes from where the first got to.
            let first = try SSEClient.start(port: port, lastEventID: 2, seconds: Self.streamWindow)
            try await Task.sleep(for: .milliseconds(400))
            for amount in ["1", "2", "3"] {
                let pay = jsonBody(["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": amount, "asset": "EVT"])
                try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: LedgerAPITests.alice + jsonHeaders, body: pay) {
                    #expect($0.status == .created)
                }
            }
            let firstIDs = try await first.finish()
            let last = try await hub.database.read { try EventLog.lastSequence(on: $0) }
            #expect(last == before + 3)
            #expect(firstIDs == Array(3...last), "first connection: \(firstIDs)")

            let resumeFrom = try #require(firstIDs.dropLast(2).last)
            let pay = jsonBody(["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": "4", "asset": "EVT"])
            try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: LedgerAPITests.alice + jsonHeaders, body: pay) { _ in }
            let second = try SSEClient.start(port: port, lastEventID: resumeFrom, seconds: Self.streamWindow)
            let secondIDs = try await second.finish()
            #expect(secondIDs == Array((resumeFrom + 1)...(last + 1)), "second connection: \(secondIDs)")
        }
    }

    /// Many streams share the bus's window of recent events (`RecentEvents`): each must still get
    /// exactly its own events, in order, whether or not it filters.
    @Test("twelve streams at once, a third of them filtered, each get every event of theirs once and in order", arguments: TestBackend.enabled)
    func manyStreams(backend: TestBackend) async throws {
        try await withTestHub(on: backend, testing: .live) { hub, client in
            let port = try #require(client.port)
            let (_, aliceWallet, bobWallet) = try await LedgerAPITests.setUp(client)
            let before = try await hub.database.read { try EventLog.lastSequence(on: $0) }
            let streams = try (0..<12).map { index in
                try SSEClient.start(
                    port: port,
                    lastEventID: before,
                    seconds: Self.streamWindow,
                    query: index % 3 == 0 ? "?type=ledger.transfer.*" : ""
                )
            }
            try await Task.sleep(for: .milliseconds(400))
            // Transfers, with an asset (another type of event) in the middle.
            for amount in 1...6 {
                let pay = jsonBody(["debit_account_id": aliceWallet, "credit_account_id": bobWallet, "amount": String(amount), "asset": "EVT"])
                try await client.execute(uri: "/v1/ledger/transfers", method: .post, headers: LedgerAPITests.alice + jsonHeaders, body: pay) {
                    #expect($0.status == .created)
                }
                if amount == 3 {
                    let asset = jsonBody(["code": "TKN", "scale": 0, "name": "Tokens"])
                    try await client.execute(uri: "/v1/assets", method: .post, headers: LedgerAPITests.admin + jsonHeaders, body: asset) {
                        #expect($0.status == .created)
                    }
                }
            }
            let last = try await hub.database.read { try EventLog.lastSequence(on: $0) }
            let transferEvents = try await hub.database.read { connection in
                try EventLog.read(after: before, limit: 1000, filter: try #require(EventFilter(["ledger.transfer.*"])), on: connection).map(
                    \.sequence
                )
            }
            #expect(transferEvents.count == 6)
            for (index, stream) in streams.enumerated() {
                let ids = try await stream.finish()
                #expect(ids == (index % 3 == 0 ? transferEvents : Array((before + 1)...last)), "stream \(index): \(ids)")
            }
        }
    }
}

/// A real HTTP client for the event stream: curl, reading for a fixed time, then the `id:` lines.
/// The windows (8 s each) are far longer than the few milliseconds the events take to arrive, so a
/// loaded machine does not make the test flaky; the test asserts content, never timing.
struct SSEClient {
    let process: SpawnedChild

    static func start(port: Int, lastEventID: Int64, seconds: Int, query: String = "") throws -> SSEClient {
        let arguments = [
            "-sN", "--max-time", String(seconds),
            "-H", "Authorization: Bearer test|admin-1|admin",
            "-H", "Last-Event-ID: \(lastEventID)",
            "http://127.0.0.1:\(port)/v1/events/stream\(query)",
        ]
        return SSEClient(process: try SpawnedChild.start("/usr/bin/curl", arguments))
    }

    /// Waits for curl to stop and returns the sequence of every event received, in order.
    ///
    /// The blocking read runs on a thread of its own: on a 2-core machine Swift's cooperative pool
    /// has two threads, and blocking one of them for the whole window stalled every other test's
    /// async work (webhook receivers answered late, deliveries timed out and were sent twice).
    func finish() async throws -> [Int64] {
        let process = process
        let data: Data = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = process.output.readAllRetryingInterrupts()
                process.wait()
                continuation.resume(returning: data)
            }
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.hasPrefix("id: ") ? Int64(line.dropFirst(4)) : nil
        }
    }
}
