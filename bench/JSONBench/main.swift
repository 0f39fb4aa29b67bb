// The API's JSON coder beside Foundation's, release build, same run, same documents. Run through
// `make bench-json` (scripts/bench-json.sh), which writes bench/results/json.json.
// Prints one JSON object per line: {"operation": …, "unit": …, "value": …, "baseline": …}.
import Foundation
import HubKernel

/// The shape of a payment-session event's data (`ble.session.paid`): nested objects, strings,
/// integers and optionals, about forty members. The hub encodes one such document for every
/// event it appends, on the writer's thread.
struct SessionEventData: Codable {
    struct Session: Codable {
        struct Payee: Codable {
            var id: String
            var displayName: String
        }
        struct Split: Codable {
            var mode: String
            var payers: Int
        }
        var id: String
        var status: String
        var amount: String
        var asset: String
        var split: Split
        var paidShares: Int
        var heldShares: Int
        var payee: Payee
        var eid: String
        var createdAt: String
        var expiresAt: String
        var endedAt: String?
    }
    struct Lock: Codable {
        var id: String
        var sessionId: String
        var share: Int
        var payerId: String
        var amount: String
        var holdTransferId: String
        var state: String
        var lockedAt: String
        var expiresAt: String
        var resolvedAt: String?
        var paymentTransferId: String?
    }
    var session: Session
    var lock: Lock?
    var releasedLocks: [Lock]?
    var previousEid: String?
}

/// A page of a list reply: an array of flat objects, with a free-form metadata map each.
struct TransferPage: Codable {
    struct Transfer: Codable {
        var id: String
        var debitAccountId: String
        var creditAccountId: String
        var amount: String
        var asset: String
        var code: Int
        var metadata: [String: String]
        var createdAt: String
    }
    var data: [Transfer]
    var nextCursor: String?
}

let lock = SessionEventData.Lock(
    id: "lk_01JDX8ZQ4M5T2W9C7B3N6K1P0R",
    sessionId: "ss_01JDX8ZQ2A7B9C3D5E7F9G1H3J",
    share: 0,
    payerId: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b9c0d",
    amount: "1250",
    holdTransferId: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b9c0e",
    state: "paid",
    lockedAt: "2026-11-29T05:00:00.123456Z",
    expiresAt: "2026-11-29T05:01:00.123456Z",
    resolvedAt: "2026-11-29T05:00:02.654321Z",
    paymentTransferId: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b9c0f"
)
let event = SessionEventData(
    session: .init(
        id: "ss_01JDX8ZQ2A7B9C3D5E7F9G1H3J",
        status: "paid",
        amount: "1250",
        asset: "EUR",
        split: .init(mode: "equal", payers: 1),
        paidShares: 1,
        heldShares: 0,
        payee: .init(id: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b9c10", displayName: "Coffee \"Bar\" / Hall B"),
        eid: "9f3c2a1b4d5e6f70",
        createdAt: "2026-11-29T04:59:58.000001Z",
        expiresAt: "2026-11-29T05:04:58.000001Z",
        endedAt: nil
    ),
    lock: lock,
    releasedLocks: nil,
    previousEid: nil
)
let page = TransferPage(
    data: (0..<50).map { index in
        .init(
            id: "0192f4c1-7d2e-7b3a-9c4d-\(String(format: "%012d", index))",
            debitAccountId: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b0001",
            creditAccountId: "0192f4c1-7d2e-7b3a-9c4d-5e6f7a8b0002",
            amount: String(index * 1_000_003),
            asset: "EUR",
            code: 1,
            metadata: ["order_id": "ord-\(index)", "till": "7"],
            createdAt: "2026-11-29T05:00:00.000000Z"
        )
    },
    nextCursor: "eyJpZCI6IjAxOTJmNGMxIn0"
)

/// Runs `body` repeatedly for about `seconds` and returns calls per second.
func rate(seconds: Double = 2, _ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<100 { try body() }  // warm-up
    var calls = 0
    let start = ContinuousClock.now
    var elapsed = 0.0
    repeat {
        for _ in 0..<64 { try body() }
        calls += 64
        let d = ContinuousClock.now - start
        elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    } while elapsed < seconds
    return Double(calls) / elapsed
}

func report(_ operation: String, ours: Double, foundation: Double) {
    print(
        #"{"operation": "\#(operation)", "unit": "documents/s", "value": \#(String(format: "%.0f", ours)), "baseline": \#(String(format: "%.0f", foundation))}"#
    )
}

// Foundation configured as the API writes JSON: snake_case members, sorted keys, slashes as is.
let foundationEncoder = JSONEncoder()
foundationEncoder.keyEncodingStrategy = .convertToSnakeCase
foundationEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let foundationDecoder = JSONDecoder()
foundationDecoder.keyDecodingStrategy = .convertFromSnakeCase
let ours = HubJSONEncoder()
let ourDecoder = HubJSONDecoder()

// The two must write the same bytes, or the comparison means nothing.
for (name, ourBytes, theirBytes) in [
    ("event", try ours.encodeBytes(event), [UInt8](try foundationEncoder.encode(event))),
    ("page", try ours.encodeBytes(page), [UInt8](try foundationEncoder.encode(page))),
] where ourBytes != theirBytes {
    FileHandle.standardError.write(
        Data(
            "JSONBench: the \(name) documents differ\n\(String(decoding: ourBytes, as: UTF8.self))\n\(String(decoding: theirBytes, as: UTF8.self))\n"
                .utf8
        )
    )
    exit(1)
}

// `JSONBench encode_event` measures only the hub's encoder on the event (for a profiler).
if CommandLine.arguments.dropFirst().first == "encode_event" {
    print(try rate(seconds: 6) { _ = try ours.encodeBytes(event) })
    exit(0)
}
report(
    "encode_event",
    ours: try rate { _ = try ours.encodeBytes(event) },
    foundation: try rate { _ = try foundationEncoder.encode(event) }
)
report(
    "encode_page_50",
    ours: try rate { _ = try ours.encodeBytes(page) },
    foundation: try rate { _ = try foundationEncoder.encode(page) }
)
let eventBytes = try ours.encodeBytes(event)
let eventData = Data(eventBytes)
report(
    "decode_event",
    ours: try rate { _ = try ourDecoder.decode(SessionEventData.self, from: eventBytes) },
    foundation: try rate { _ = try foundationDecoder.decode(SessionEventData.self, from: eventData) }
)
