import ChainKit
import Foundation
import HubKernel
import Logging

/// Signs and sends the rail's transactions: one at a time per sender and chain (an in-process
/// lock; across instances the unique nonce index refuses a collision, which is retried), the
/// operation written with its signed bytes before the node sees them, so a crash in between
/// sends it on restart (``OperationTracker``) and nothing is lost or sent twice.
///
/// A call the chain would revert is refused before anything is signed: `eth_estimateGas`
/// answers the revert, which becomes `call_reverted` with the contract's reason.
struct TransactionSender: Sendable {
    let context: PluginContext
    let locks: SenderLocks

    struct Request: Sendable {
        var chain: EVMChainSettings
        var client: ChainClient
        var userID: UserID?
        var kind: String
        var subject: String
        /// What the tracker needs when the transaction is final (JSON object of strings).
        var details: [String: String] = [:]
        var to: EthereumAddress?
        var value: UInt256 = .zero
        var data: [UInt8]

        var record: Record { Record(chain: chain.id, userID: userID?.description, kind: kind, subject: subject, details: details) }
    }

    /// How often a send looks for a free nonce when other instances keep taking it.
    static let nonceAttempts = 12

    func send(_ request: Request, privateKey: [UInt8], from sender: EthereumAddress) async throws -> EVMOperation {
        try await locks.withLock("\(request.chain.id):\(sender.checksummed)") {
            for attempt in 1...Self.nonceAttempts {
                do {
                    return try await sendLocked(request, privateKey: privateKey, from: sender)
                } catch let error as DatabaseError where error.kind == .constraint {
                    // Another instance took that nonce: the next read sees it. A random pause
                    // keeps two instances sending from one account from colliding in step.
                    try await Task.sleep(for: .milliseconds(Int.random(in: 2...20) * attempt))
                }
            }
            throw EVMError(kind: .unavailable, errorCode: "nonce_contention", message: "Could not get a nonce for \(sender.checksummed); retry.")
        }
    }

    /// Sends `request` signed by the hub, or prepares it for the caller's wallet to sign.
    func dispatch(_ request: Request, by signer: EVMSigner) async throws -> EVMWriteResult {
        switch signer {
        case .custodial(let address, let key): .sent(try await send(request, privateKey: key, from: address))
        case .wallet(let address): .prepared(try await prepare(request, from: address))
        }
    }

    private func sendLocked(_ request: Request, privateKey: [UInt8], from sender: EthereumAddress) async throws -> EVMOperation {
        let client = request.client
        let chainNonce = try await client.quantity("eth_getTransactionCount", [sender.checksummed, "pending"])
        let chainID = request.chain.id
        let knownNonce = try await context.database.read { connection in
            try connection.queryFirst(
                "SELECT max(nonce) AS n FROM evm_operations WHERE chain = \(chainID) AND from_address = \(sender.checksummed) AND (error IS NULL OR error NOT LIKE 'refused:%')"
            )?.optionalInt("n")
        }
        let nonce = max(chainNonce, knownNonce.map { UInt64($0) + 1 } ?? 0)
        let (gasLimit, gasPrice) = try await fees(request, from: sender)
        let transaction = EthereumTransaction(
            envelope: .legacy,
            chainID: request.chain.chainID,
            nonce: nonce,
            gasPrice: gasPrice,
            gasLimit: gasLimit,
            to: request.to,
            value: request.value,
            data: request.data
        )
        let signed = try transaction.signed(privateKey: privateKey)
        let operation = try await context.write { unit in
            try record(signed, of: request.record, from: sender, on: unit)
        }
        try await relay(signed.raw, of: operation, chain: request.chain, client: client)
        return operation
    }

    /// The gas limit (the node's estimate and a margin) and price of `request`; a call the chain
    /// would revert is refused here, before anything is signed.
    func fees(_ request: Request, from sender: EthereumAddress) async throws -> (limit: UInt64, price: UInt256) {
        var call: [String: Any] = ["from": sender.checksummed, "data": Hex.encode(request.data), "value": Self.quantity(request.value)]
        if let to = request.to { call["to"] = to.checksummed }
        let estimate: UInt64
        do {
            estimate = try await request.client.quantity("eth_estimateGas", [call])
        } catch let error as EVMError where error.errorCode == "node_error" {
            throw EVMError(kind: .refused, errorCode: "call_reverted", message: "The chain refuses this call: \(error.message)")
        }
        let gasPrice = try await request.client.quantity("eth_gasPrice")
        return (estimate + estimate / 5 + 10_000, UInt256(gasPrice))
    }

    /// What an operation records of its request.
    struct Record: Sendable, Codable {
        var chain: String
        var userID: String?
        var kind: String
        var subject: String
        var details: [String: String]
    }

    /// Stores the operation of a signed transaction (before any node sees it), with its event.
    func record(_ signed: SignedEthereumTransaction, of record: Record, from sender: EthereumAddress, on unit: UnitOfWork) throws -> EVMOperation {
        let id = UUID().uuidString.lowercased()
        var details = record.details
        // What the transaction paid in: the ledger mirror of an external chain enters it (``ContractLedger``).
        if !signed.transaction.value.isZero { details["value"] = signed.transaction.value.description }
        let detailsJSON = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        try unit.connection.execute(
            """
            INSERT INTO evm_operations (id, chain, user_id, kind, subject, state, from_address, nonce, tx_hash, raw, details, created_at, updated_at) \
            VALUES (\(id), \(record.chain), \(record.userID), \(record.kind), \(record.subject), 'pending', \(sender.checksummed), \
            \(Int64(signed.transaction.nonce)), \(Hex.encode(signed.hash)), \(signed.raw), \(detailsJSON), \(unit.now), \(unit.now))
            """
        )
        guard let operation = try EVMOperation.find(id, on: unit.connection) else { throw EVMError.invalid("operation", "not stored") }
        try unit.emit(EVMEvents.operationSubmitted, subject: id, data: EVMEvents.OperationData(operation: operation))
        return operation
    }

    /// Hands the stored transaction to the node. A refusal fails the operation; a node that cannot
    /// be reached leaves it to the tracker, which sends it once the node answers.
    func relay(_ raw: [UInt8], of operation: EVMOperation, chain: EVMChainSettings, client: ChainClient) async throws {
        do {
            _ = try await client.call("eth_sendRawTransaction", [Hex.encode(raw)])
        } catch let error as EVMError where error.errorCode == "node_error" && !error.message.contains("already known") {
            _ = try await context.write { unit in
                try unit.connection.execute(
                    "UPDATE evm_operations SET state = 'failed', error = \("refused: " + error.message), updated_at = \(unit.now) WHERE id = \(operation.id)"
                )
            }
            throw error
        } catch let error as EVMError where error.errorCode == "chain_unavailable" {
            // Stored and signed, so not lost: the tracker sends it once the node answers. Saying
            // "unavailable" here would invite a retry that mints twice; the operation is the answer.
            context.logger.info(
                "evm: node unreachable while sending; the tracker will send it",
                metadata: ["operation": "\(operation.id)", "error": "\(error.message)"]
            )
        }
    }

    static func quantity(_ value: UInt256) -> String {
        let hex = Hex.encode(value.minimalBigEndianBytes, prefix: false).drop { $0 == "0" }
        return "0x" + (hex.isEmpty ? "0" : String(hex))
    }
}

/// One lock per key, in process: the rail's sends from one account never race for a nonce.
actor SenderLocks {
    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        while held.contains(key) {
            await withCheckedContinuation { waiters[key, default: []].append($0) }
        }
        held.insert(key)
        defer {
            held.remove(key)
            if var queue = waiters[key], !queue.isEmpty {
                queue.removeFirst().resume()
                waiters[key] = queue.isEmpty ? nil : queue
            }
        }
        return try await body()
    }
}
