import Foundation
import HubKernel

/// Rail-shaped units of work through the kernel's writer, without HTTP: the statements a BLE
/// session's lock and pay cost (a row of the rail's own table locked and read with its children,
/// a ledger hold or its posting, a child row written, the row updated, an event), so that a
/// change to the write path is measured without the noise of a web server and a load tool on
/// the same two cores. `hub-single-64-callers` in the same run is the transfer it compares with.
struct RailUnits {
    static let owner = UnitOwner.rail("benchrail", eventTypes: ["benchrail.created", "benchrail.locked", "benchrail.paid"])

    let work: HubWorkloads

    /// The rail's two tables, as a rail's migration would make them.
    func createTables() async throws {
        try await work.ledger.database.write { connection in
            try connection.executeScript(
                """
                CREATE TABLE benchrail_sessions (id TEXT PRIMARY KEY, payee TEXT NOT NULL, status TEXT NOT NULL, held BIGINT NOT NULL, paid BIGINT NOT NULL);
                CREATE TABLE benchrail_locks (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES benchrail_sessions (id),
                    hold_id TEXT NOT NULL, state TEXT NOT NULL);
                CREATE INDEX benchrail_locks_session ON benchrail_locks (session_id, state);
                """
            )
        }
    }

    struct Event: Encodable {
        var sessionId: String
        var lockId: String?
        var status: String
    }

    /// `callers` concurrent tasks, each doing `total / callers / 3` sessions of three units
    /// (create: the row inserted; lock: a hold; pay: its posting) on a session of its own, paying
    /// another caller's wallet.
    func run(total: Int, callers: Int) async throws -> BenchResult {
        let ledger = work.ledger
        let asset = work.asset
        let accounts = work.accounts
        let sessionsPerCaller = max(1, total / (callers * 3))
        return try await work.measureCallers(callers, mode: "hub-rail-units-\(callers)-callers", count: sessionsPerCaller * callers * 3) { caller in
            var latencies = Latencies()
            let payer = accounts[caller]
            let payee = accounts[(caller + 1) % callers]
            for _ in 0..<sessionsPerCaller {
                let session = UUID().uuidString
                var began = ContinuousClock.now
                try await ledger.write(as: Self.owner) { unit in
                    try unit.connection.execute(
                        "INSERT INTO benchrail_sessions (id, payee, status, held, paid) VALUES (\(session), \(payee.description), 'open', 0, 0)"
                    )
                    try unit.emit("benchrail.created", subject: session, data: Event(sessionId: session, lockId: nil, status: "open"))
                }
                latencies.add(ContinuousClock.now - began)
                began = ContinuousClock.now
                let hold = TransferID.timeOrdered()
                try await ledger.write(as: Self.owner) { unit in
                    try Self.step(
                        unit,
                        session: session,
                        status: "locked",
                        TransferRequest(id: hold, action: .hold(debit: payer, credit: payee, amount: 1, asset: asset, timeoutSeconds: 600))
                    )
                }
                latencies.add(ContinuousClock.now - began)
                began = ContinuousClock.now
                try await ledger.write(as: Self.owner) { unit in
                    try Self.step(
                        unit,
                        session: session,
                        status: "paid",
                        TransferRequest(id: .timeOrdered(), action: .postPending(pendingID: hold, amount: nil))
                    )
                }
                latencies.add(ContinuousClock.now - began)
            }
            return latencies
        }
    }

    /// One step: the session and its locks read (the session row-locked), the transfer
    /// submitted, a lock row written, the session updated, an event appended.
    static func step(_ unit: UnitOfWork, session: String, status: String, _ request: TransferRequest) throws {
        let results = try unit.connection.queries([
            "SELECT id, payee, status, held, paid FROM benchrail_sessions WHERE id = \(session)" + .forUpdate(unit.connection.dialect),
            "SELECT id, hold_id, state FROM benchrail_locks WHERE session_id = \(session)",
        ])
        guard results[0].count == 1 else { throw BenchError("session \(session) is missing") }
        if case .failed(let error) = try unit.submit(request) { throw BenchError("a benchmark transfer failed in a unit: \(error)") }
        let lock = UUID().uuidString
        try unit.connection.execute(
            "INSERT INTO benchrail_locks (id, session_id, hold_id, state) VALUES (\(lock), \(session), \(request.id.description), \(status))"
        )
        try unit.connection.execute("UPDATE benchrail_sessions SET status = \(status), held = held + 1 WHERE id = \(session)")
        try unit.emit("benchrail.\(status)", subject: session, data: Event(sessionId: session, lockId: lock, status: status))
    }
}
