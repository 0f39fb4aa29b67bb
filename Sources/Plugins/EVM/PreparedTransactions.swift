import ChainKit
import Foundation
import HubKernel

/// A transaction the hub prepared for a user's own wallet: the wallet signs `transaction` (the
/// fields of `eth_signTransaction`) and the client submits the raw bytes with this `id`.
struct PreparedTransaction: Sendable, Encodable {
    var id: String
    var chain: String
    /// The operation it becomes (`mint`, `listing.create`, `approve`, …).
    var kind: String
    var expiresAt: String
    /// The fields of `eth_signTransaction` as wallets take them: JSON-RPC's names (`chainId`,
    /// `gasPrice`, not the API's snake_case) and hex quantities.
    var transaction: [String: String]
    /// Where the signed bytes go.
    var submit = "/v1/rails/evm/transactions"
}

/// Prepare and submit: for users who keep their own wallet. The hub prepares an action's
/// transaction exactly as it would send it (the call is checked first, so one the chain would
/// revert is refused before the wallet is asked), keeps what it prepared for a while, and when
/// the client submits the signed bytes checks they are that transaction, signed by that wallet,
/// before recording the operation and relaying it; from there it is tracked like any other.
extension TransactionSender {
    /// How long a prepared transaction may be submitted.
    static let preparedLifetime: UInt64 = 15 * 60

    func prepare(_ request: Request, from wallet: EthereumAddress) async throws -> PreparedTransaction {
        let nonce = try await request.client.quantity("eth_getTransactionCount", [wallet.checksummed, "pending"])
        let (gasLimit, gasPrice) = try await fees(request, from: wallet)
        let id = UUID().uuidString.lowercased()
        let record = String(decoding: try JSONEncoder().encode(request.record), as: UTF8.self)
        let expires = try await context.write { unit -> LedgerTimestamp in
            let expires = LedgerTimestamp(nanoseconds: unit.now.nanoseconds + Self.preparedLifetime * 1_000_000_000)
            try unit.connection.execute(
                """
                INSERT INTO evm_prepared (id, chain, user_id, record, from_address, to_address, value, data, nonce, gas_limit, gas_price, \
                expires_at, created_at) VALUES (\(id), \(request.chain.id), \(request.userID?.description), \(record), \(wallet.checksummed), \
                \(request.to?.checksummed), \(request.value.description), \(request.data), \(Int64(nonce)), \(Int64(gasLimit)), \
                \(gasPrice.description), \(expires), \(unit.now))
                """
            )
            return expires
        }
        return PreparedTransaction(
            id: id,
            chain: request.chain.id,
            kind: request.kind,
            expiresAt: expires.description,
            transaction: [
                "chainId": Self.quantity(UInt256(request.chain.chainID)),
                "from": wallet.checksummed,
                "value": Self.quantity(request.value),
                "data": Hex.encode(request.data),
                "nonce": Self.quantity(UInt256(nonce)),
                "gas": Self.quantity(UInt256(gasLimit)),
                "gasPrice": Self.quantity(gasPrice),
            ].merging(request.to.map { ["to": $0.checksummed] } ?? [:]) { first, _ in first }
        )
    }

    /// Records and relays the wallet's signature of prepared transaction `id`. Submitting the same
    /// bytes again answers the same operation.
    func submit(prepared id: String, raw: [UInt8], by user: UserID, chains: EVMChains) async throws -> EVMOperation {
        let signed: SignedEthereumTransaction
        do {
            signed = try SignedEthereumTransaction.decode(raw)
        } catch {
            throw EVMError.invalid("raw", "raw is not a signed Ethereum transaction: \(error)")
        }
        let found = try await context.database.read { connection in
            // Decoded here: a row is valid only inside the read.
            try connection.queryFirst(
                """
                SELECT chain, record, from_address, to_address, value, data, expires_at, operation_id FROM evm_prepared \
                WHERE id = \(id) AND user_id = \(user.description)
                """
            ).map(Stored.init)
        }
        guard let stored = found else {
            throw EVMError(kind: .notFound, errorCode: "prepared_not_found", message: "No prepared transaction \(id.prefix(40)) of yours.")
        }
        if let operationID = stored.operationID {
            let operation = try await context.database.read { connection in try EVMOperation.find(operationID, on: connection) }
            guard let operation, operation.txHash == Hex.encode(signed.hash) else {
                throw EVMError(kind: .conflict, errorCode: "already_submitted", message: "This prepared transaction was submitted with other bytes.")
            }
            return operation
        }
        guard stored.expiresAt > context.clock.now() else {
            throw EVMError(kind: .refused, errorCode: "prepared_expired", message: "The prepared transaction expired; prepare it again.")
        }
        let chain = try chains.settings(stored.chain)
        let transaction = signed.transaction
        let wallet = stored.from
        guard transaction.chainID == chain.chainID, transaction.to == stored.to, transaction.value == stored.value, transaction.data == stored.data
        else {
            throw EVMError(
                kind: .refused,
                errorCode: "transaction_mismatch",
                message: "The signed transaction is not the one prepared (chain, recipient, value and data must be as given).",
                field: "raw"
            )
        }
        guard (try? signed.sender()) == wallet else {
            throw EVMError(
                kind: .refused,
                errorCode: "transaction_mismatch",
                message: "The transaction is not signed by \(wallet.checksummed).",
                field: "raw"
            )
        }
        let record = stored.record
        let operation: EVMOperation
        do {
            operation = try await context.write { unit -> EVMOperation in
                let operation = try self.record(signed, of: record, from: wallet, on: unit)
                let claimed = try unit.connection.execute(
                    "UPDATE evm_prepared SET operation_id = \(operation.id) WHERE id = \(id) AND operation_id IS NULL"
                )
                guard claimed == 1 else {
                    throw EVMError(kind: .conflict, errorCode: "already_submitted", message: "This prepared transaction was submitted already.")
                }
                return operation
            }
        } catch let error as DatabaseError where error.kind == .constraint {
            throw EVMError(
                kind: .conflict,
                errorCode: "nonce_used",
                message: "Another operation of \(wallet.checksummed) has nonce \(transaction.nonce); sign with the nonce prepared.",
                field: "raw"
            )
        }
        try await relay(signed.raw, of: operation, chain: chain, client: try chains.client(chain))
        return operation
    }

    /// A prepared transaction as stored.
    private struct Stored: Sendable {
        var chain: String
        var record: Record
        var from: EthereumAddress
        var to: EthereumAddress?
        var value: UInt256
        var data: [UInt8]
        var expiresAt: LedgerTimestamp
        var operationID: String?

        init(_ row: SQLRow) throws {
            chain = try row.text("chain")
            record = try JSONDecoder().decode(Record.self, from: Data(try row.text("record").utf8))
            from = try EthereumAddress(try row.text("from_address"))
            to = try row.optionalText("to_address").map { try EthereumAddress($0) }
            value = try UInt256(decimal: try row.text("value"))
            data = try row.bytes("data")
            expiresAt = try row.decode("expires_at", as: LedgerTimestamp.self)
            operationID = try row.optionalText("operation_id")
        }
    }
}
