import ChainKit
import HubKernel

/// What the explorer reads beyond ``LocalChainStore``: accounts with the size of their code (all,
/// only contracts, or only accounts a key holds) and the logs of one sealed transaction.
/// Synchronous SQL, run inside `context.database.read`.
enum ExplorerStore {
    /// `?kind=` of the accounts list.
    enum AccountKind: String, Sendable, CaseIterable {
        /// Accounts with code.
        case contract
        /// Accounts without code (held by a key).
        case account
    }

    /// A page of accounts by address after `after`, each with its code's size in bytes.
    static func accounts(
        chainID: UInt64,
        kind: AccountKind?,
        after: String,
        limit: Int,
        on connection: any SQLConnection
    ) throws -> [(account: ChainAccount, codeSize: Int)] {
        let chain = Int64(clamping: chainID)
        // A correlated lookup on the code table's primary key: one row per account of the page.
        let code: SQL =
            "FROM localchain_code WHERE localchain_code.chain_id = localchain_accounts.chain_id AND localchain_code.address = localchain_accounts.address"
        var sql: SQL =
            "SELECT address, nonce, balance, ledger_account_id, storage_root, code_hash, (SELECT CAST(length(code) AS BIGINT) " + code
            + ") AS code_size FROM localchain_accounts WHERE chain_id = \(chain)"
        switch kind {
        case .contract: sql += " AND EXISTS (SELECT 1 " + code + ")"
        case .account: sql += " AND NOT EXISTS (SELECT 1 " + code + ")"
        case nil: break
        }
        sql += .page(after: after, by: SQLIdentifier("address")!, limit: limit)
        return try connection.query(sql).map { row in
            (try LocalChainStore.account(row), Int(try row.optionalInt("code_size") ?? 0))
        }
    }

    /// The size of an account's code in bytes (0 without code).
    static func codeSize(chainID: UInt64, address: EthereumAddress, on connection: any SQLConnection) throws -> Int {
        let row = try connection.queryFirst(
            """
            SELECT CAST(length(code) AS BIGINT) AS code_size FROM localchain_code \
            WHERE chain_id = \(Int64(clamping: chainID)) AND address = \(address.description)
            """
        )
        return Int(try row?.int("code_size") ?? 0)
    }
}

extension TransactionRepresentation {
    /// This answer with its call decoded from the signed bytes (a contract creation's data is
    /// initcode, not a call) and, when given, its logs.
    func explained(raw: [UInt8], logs: [ChainLog]? = nil) -> Self {
        var copy = self
        if let transaction = try? SignedEthereumTransaction.decode(raw).transaction, transaction.to != nil {
            copy.call = KnownSignatures.decodeCall(transaction.data)
        }
        copy.logs = logs?.map(LogRepresentation.init)
        return copy
    }
}
