import ChainKit
import Foundation
import HubKernel
import NIOPosix

/// The hub-held EVM accounts: one per user and chain, created on first use, its key sealed by
/// ``CustodialKeys``. Users who keep their own wallet sign in with it instead (``EthereumSignIn``)
/// and need no custodial account.
struct CustodialAccounts: Sendable {
    let context: PluginContext
    let keys: CustodialKeys

    /// The user's account on `chain`, created (with `evm.account.created`) if they have none.
    /// Two concurrent first uses create one account: the loser of the race reads the winner's.
    func account(for user: UserID, on chain: String) async throws -> CustodialAccount {
        if let existing = try await find(user: user, chain: chain) { return existing }
        let (privateKey, address) = CustodialKeys.newKey()
        let sealed = try keys.seal(privateKey, chain: chain, address: address)
        return try await context.write { unit in
            let inserted = try unit.connection.execute(
                """
                INSERT INTO evm_accounts (chain, user_id, address, sealed_key, created_at) \
                VALUES (\(chain), \(user), \(address.checksummed), \(sealed), \(unit.now)) ON CONFLICT (chain, user_id) DO NOTHING
                """
            )
            guard
                let row = try unit.connection.queryFirst(
                    "SELECT chain, user_id, address, created_at FROM evm_accounts WHERE chain = \(chain) AND user_id = \(user)"
                )
            else { throw EVMError(kind: .unavailable, errorCode: "account_unavailable", message: "The account could not be created.") }
            let account = try CustodialAccount(row)
            if inserted == 1 {
                try unit.emit(EVMEvents.accountCreated, subject: account.address, data: EVMEvents.AccountData(account))
            }
            return account
        }
    }

    func find(user: UserID, chain: String) async throws -> CustodialAccount? {
        try await context.database.read { connection in
            try connection.queryFirst("SELECT chain, user_id, address, created_at FROM evm_accounts WHERE chain = \(chain) AND user_id = \(user)")
                .map(CustodialAccount.init)
        }
    }

    /// The user's accounts on every chain, oldest first.
    func accounts(of user: UserID) async throws -> [CustodialAccount] {
        try await context.database.read { connection in
            try connection.query("SELECT chain, user_id, address, created_at FROM evm_accounts WHERE user_id = \(user) ORDER BY created_at, chain")
                .map(CustodialAccount.init)
        }
    }

    /// The account's private key, for signing its transactions.
    func privateKey(user: UserID, chain: String) async throws -> (CustodialAccount, [UInt8]) {
        let found = try await context.database.read { connection in
            try connection.queryFirst(
                "SELECT chain, user_id, address, created_at, sealed_key FROM evm_accounts WHERE chain = \(chain) AND user_id = \(user)"
            )
            .map { (try CustodialAccount($0), try $0.bytes("sealed_key")) }
        }
        guard let (account, sealed) = found else { throw EVMError.accountNotFound("on chain \(chain)") }
        return (account, try keys.open(sealed, chain: chain, address: try EthereumAddress(account.address)))
    }

    /// The key of the custodial account at `address` on `chain`, if the hub holds one.
    func privateKey(address: EthereumAddress, chain: String) async throws -> [UInt8]? {
        let sealed = try await context.database.read { connection in
            try connection.queryFirst("SELECT sealed_key FROM evm_accounts WHERE chain = \(chain) AND address = \(address.checksummed)")?
                .bytes("sealed_key")
        }
        return try sealed.map { try keys.open($0, chain: chain, address: address) }
    }

    /// The user's key as a keystore v3 file (scrypt, as wallets write them) under `password`,
    /// which standard wallets import. Recorded as `evm.account.exported`: the key has left the hub.
    /// scrypt's second of work runs on NIO's thread pool, never on Swift's cooperative pool.
    func exportKeystore(user: UserID, chain: String, password: String) async throws -> String {
        guard password.utf8.count >= 8, password.utf8.count <= 1024 else {
            throw EVMError.invalid("password", "A keystore password is 8 to 1024 bytes.")
        }
        let (account, privateKey) = try await privateKey(user: user, chain: chain)
        let keystore = try await NIOThreadPool.singleton.runIfActive {
            try Keystore.encrypt(privateKey: privateKey, password: password)
        }
        try await context.write { unit in
            try unit.emit(EVMEvents.accountExported, subject: account.address, data: EVMEvents.AccountData(account))
        }
        return keystore
    }
}

/// A custodial account as the API shows it.
struct CustodialAccount: Sendable, Hashable, Encodable {
    var chain: String
    var userID: String
    /// EIP-55 checksummed.
    var address: String
    var createdAt: String

    init(_ row: SQLRow) throws {
        chain = try row.text("chain")
        userID = try row.text("user_id")
        address = try row.text("address")
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
    }
}
