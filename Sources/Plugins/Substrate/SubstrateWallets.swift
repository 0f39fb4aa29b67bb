import ChainKit
import Foundation
import HTTPTypes
import HubKernel

/// A user's Substrate wallets: custodial ones the hub made (secret sealed by ``WalletSecrets``)
/// and external ones the user proved they hold. One public key belongs to one user.
struct SubstrateWallets: Sendable {
    let context: PluginContext
    let secrets: WalletSecrets
    let ss58Prefix: UInt16

    static let table = "substrate_wallets"
    private static let columns: SQL = "public_key, user_id, kind, scheme, created_at"

    /// Makes a custodial sr25519 wallet for `user`, links it to them for wallet sign-in and
    /// appends `substrate.wallet.created`, in the unit that answers the request: the reply carries the mnemonic, so it is `no-store` and no
    /// `Idempotency-Key` records it.
    func createCustodial(for user: UserID) async throws -> HTTPReply {
        let (entropy, mnemonic, keyPair) = try WalletSecrets.newWallet()
        let prefix = ss58Prefix
        return try await context.respondReply { [secrets] unit in
            let sealed = try secrets.seal(entropy, publicKey: keyPair.publicKey)
            try unit.connection.execute(
                """
                INSERT INTO substrate_wallets (public_key, user_id, kind, scheme, sealed_secret, created_at) \
                VALUES (\(keyPair.publicKey), \(user), 'custodial', 'sr25519', \(sealed), \(unit.now))
                """
            )
            let wallet = SubstrateWallet(publicKey: keyPair.publicKey, userID: user, kind: .custodial, scheme: "sr25519", createdAt: unit.now)
            let shown = try WalletRepresentation(wallet, prefix: prefix)
            // Linked for sign-in at once: the hub made the key, so nobody else (who might learn
            // the mnemonic later) can sign in with it first as a new user of their own.
            try unit.linkWallet(scheme: "sr25519", address: shown.address, to: user)
            try unit.emit(SubstrateEvents.walletCreated, subject: shown.address, data: shown)
            let created = CreatedWalletRepresentation(wallet: shown, mnemonic: mnemonic)
            var reply = try HTTPReply.json(created, status: .created, location: "/v1/rails/substrate/wallets/\(shown.address)")
            reply.noStore = true
            return reply
        }
    }

    /// Registers `publicKey` for `user` once the kernel linked it to them (a signed challenge),
    /// with `substrate.wallet.registered`. Registering one's own wallet again answers it (200).
    func registerExternal(publicKey: [UInt8], scheme: String, for user: UserID) async throws -> HTTPReply {
        let prefix = ss58Prefix
        return try await context.respondReply { unit in
            if let existing = try Self.wallet(publicKey, on: unit.connection, forUpdate: true) {
                guard existing.userID == user else { throw SubstrateError.walletTaken(try SS58.encode(publicKey, prefix: prefix)) }
                return try .json(try WalletRepresentation(existing, prefix: prefix))
            }
            try unit.connection.execute(
                """
                INSERT INTO substrate_wallets (public_key, user_id, kind, scheme, sealed_secret, created_at) \
                VALUES (\(publicKey), \(user), 'external', \(scheme), NULL, \(unit.now))
                """
            )
            let wallet = SubstrateWallet(publicKey: publicKey, userID: user, kind: .external, scheme: scheme, createdAt: unit.now)
            let shown = try WalletRepresentation(wallet, prefix: prefix)
            try unit.emit(SubstrateEvents.walletRegistered, subject: shown.address, data: shown)
            return try .json(shown, status: .created, location: "/v1/rails/substrate/wallets/\(shown.address)")
        }
    }

    /// The wallet of `publicKey`, whoever holds it.
    func wallet(_ publicKey: [UInt8]) async throws -> SubstrateWallet? {
        try await context.database.read { try Self.wallet(publicKey, on: $0, forUpdate: false) }
    }

    /// `user`'s wallets, oldest first.
    func wallets(of user: UserID) async throws -> [SubstrateWallet] {
        try await context.database.read { connection in
            try connection.query("SELECT " + Self.columns + " FROM substrate_wallets WHERE user_id = \(user) ORDER BY created_at, public_key")
                .map(SubstrateWallet.init)
        }
    }

    static func wallet(_ publicKey: [UInt8], on connection: any SQLConnection, forUpdate: Bool) throws -> SubstrateWallet? {
        let lock = forUpdate ? SQL.forUpdate(connection.dialect) : ""
        return try connection.queryFirst("SELECT " + columns + " FROM substrate_wallets WHERE public_key = \(publicKey)" + lock)
            .map(SubstrateWallet.init)
    }
}

extension PluginContext {
    /// ``respond(_:)`` answering with the `HTTPReply` itself, so a `no-store` reply keeps its
    /// `Cache-Control` header.
    func respondReply(_ body: @escaping @Sendable (UnitOfWork) throws -> HTTPReply) async throws -> HTTPReply {
        try await write { unit in
            let reply = try body(unit)
            try unit.answer(reply)
            return reply
        }
    }
}

/// A wallet row.
struct SubstrateWallet: Sendable, Hashable {
    enum Kind: String, Sendable, Codable {
        case custodial
        case external
    }

    var publicKey: [UInt8]
    var userID: UserID
    var kind: Kind
    var scheme: String
    var createdAt: LedgerTimestamp

    init(publicKey: [UInt8], userID: UserID, kind: Kind, scheme: String, createdAt: LedgerTimestamp) {
        self.publicKey = publicKey
        self.userID = userID
        self.kind = kind
        self.scheme = scheme
        self.createdAt = createdAt
    }

    init(_ row: SQLRow) throws {
        publicKey = try row.bytes("public_key")
        userID = try row.decode("user_id")
        guard let kind = Kind(rawValue: try row.text("kind")) else { throw SubstrateError.invalid("kind", "unknown wallet kind in the database") }
        self.kind = kind
        scheme = try row.text("scheme")
        createdAt = try row.decode("created_at")
    }
}

/// A wallet as the API shows it. Never carries a secret.
struct WalletRepresentation: Sendable, Codable, Equatable {
    /// SS58 with the configured prefix.
    var address: String
    /// `0x` + 64 hex digits.
    var publicKey: String
    var ss58Prefix: UInt16
    var kind: SubstrateWallet.Kind
    var scheme: String
    var userId: String
    var createdAt: String

    init(_ wallet: SubstrateWallet, prefix: UInt16) throws {
        address = try SS58.encode(wallet.publicKey, prefix: prefix)
        publicKey = "0x" + HexText.encode(wallet.publicKey)
        ss58Prefix = prefix
        kind = wallet.kind
        scheme = wallet.scheme
        userId = wallet.userID.description
        createdAt = wallet.createdAt.description
    }
}

/// A new custodial wallet: the wallet and, this once, its mnemonic.
struct CreatedWalletRepresentation: Sendable, Encodable {
    var wallet: WalletRepresentation
    /// The 12 words, shown once: the hub never answers them again.
    var mnemonic: String

    func encode(to encoder: any Encoder) throws {
        try wallet.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(mnemonic, forKey: .mnemonic)
    }

    private enum Keys: String, CodingKey { case mnemonic }
}
