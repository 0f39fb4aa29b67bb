// A child process for the crash test: writes from several concurrent tasks and prints a line for
// each write the hub acknowledged, flushing after every line: `ACK <transfer id>` for a plain
// transfer, `UNIT <transfer id>` for a unit of work (its own row, the transfer and an event,
// grouped with the others). The test kills it with SIGKILL mid-stream and checks that every
// acknowledged write survived, whole and once.
//
// Usage: LedgerCrashWriter DATABASE_URL
import Foundation
import HubKernel
import Logging
import ServiceLifecycle

/// Writes a line straight to the pipe (unbuffered), so the parent sees every acknowledgement
/// that happened before the kill.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: LedgerCrashWriter DATABASE_URL\n".utf8))
    exit(2)
}

let database = try await Database.open(try DatabaseURL(arguments[1]))
try await Migrator([(group: .kernel, migrations: Ledger.migrations)]).migrate(database)
// The units' own table (a rail's, in effect); created once, whoever starts first. Under the
// migrations' lock: two processes' `CREATE TABLE IF NOT EXISTS` race on PostgreSQL (both pass the
// check, one fails on pg_type's unique index).
try await database.write { connection in
    if connection.dialect == .postgres { try connection.execute("SELECT pg_advisory_xact_lock(7041532)") }
    try connection.executeScript(connection.dialect.ddl("CREATE TABLE IF NOT EXISTS crash_notes (transfer_id {id} PRIMARY KEY, note TEXT NOT NULL)"))
}
let ledger = Ledger(database: database, logger: Logger(label: "crash-writer"))

let walletCount = 8
let walletIDs = (1...walletCount).map { AccountID(rawValue: UInt128($0)) }

try await withThrowingTaskGroup(of: Void.self) { group in
    for service in ledger.services { group.addTask { try await service.run() } }

    // Set-up is idempotent, so a restarted writer finds it in place.
    let asset = try await ledger.createAsset(NewAsset(code: AssetCode("CRASH")!, scale: 0, name: "crash test")).value!
    _ = try await ledger.createAccounts(walletIDs.map { NewAccount(id: $0, asset: asset.code, owner: .user("crash-\($0)")) })
    for wallet in walletIDs {
        let mint = TransferRequest(
            id: TransferID(rawValue: wallet.rawValue),
            action: .post(debit: asset.issuanceAccountID, credit: wallet, amount: 1_000_000_000, asset: asset.code)
        )
        _ = try await ledger.submit(mint)
    }
    report("READY")

    struct Note: Encodable { var transferId: String }
    for _ in 0..<4 {
        group.addTask {
            while true {
                let from = walletIDs.randomElement()!
                let to = walletIDs.filter { $0 != from }.randomElement()!
                let id = TransferID.random()
                let moved = try await ledger.write { unit -> Bool in
                    let result = try unit.submit(
                        TransferRequest(id: id, action: .post(debit: from, credit: to, amount: UInt128.random(in: 1...100), asset: asset.code))
                    )
                    guard result.transfer != nil else { return false }
                    try unit.connection.execute("INSERT INTO crash_notes (transfer_id, note) VALUES (\(id), 'moved')")
                    try unit.emit("crash.unit.done", subject: id.description, data: Note(transferId: id.description))
                    return true
                }
                if moved { report("UNIT \(id)") }
            }
        }
    }
    for _ in 0..<4 {
        group.addTask {
            while true {
                let from = walletIDs.randomElement()!
                var to = walletIDs.randomElement()!
                while to == from { to = walletIDs.randomElement()! }
                let id = TransferID.random()
                let result = try await ledger.submit(
                    TransferRequest(id: id, action: .post(debit: from, credit: to, amount: UInt128.random(in: 1...100), asset: asset.code))
                )
                if result.transfer != nil { report("ACK \(id)") }
            }
        }
    }
    try await group.waitForAll()
}
