import ChainKit
import HubKernel

/// An event chain as stored: its settings, validator and head.
/// (`package`: the test harness of this package reads a chain's head; not API for other packages.)
package struct LocalChain: Sendable, Equatable {
    enum Status: String, Sendable, Codable {
        /// Takes transactions.
        case active
        /// Takes none for now, and seals none: the operator's brake. Accepted ones wait in the pool
        /// until the chain is resumed.
        case paused
        /// Takes none ever again; balances stay as they are (cash-out moves them back).
        case closed
    }

    var chainID: UInt64
    var name: String
    var currencyName: String
    var symbol: String
    var decimals: UInt8
    var asset: AssetCode
    var blockIntervalMs: Int64
    var host: HostLocation?
    var status: Status
    var organiserID: String
    var validator: EthereumAddress
    var sealedKey: [UInt8]
    var genesisHash: String
    package var headNumber: UInt64
    var headHash: String
    var headTimeMs: Int64
    var createdAt: Int64
    /// The hub this chain is relayed from; `nil` when this hub is its validator.
    var upstream: String? = nil
    /// The gas all transactions of one block may use together (and one transaction at most). Fixed
    /// when the chain is created and recorded in its genesis, so relays execute with the same.
    var blockGasLimit: UInt64 = LocalChainConfiguration.defaultBlockGasLimit
    /// How its headers commit to the state (``StateRootKind``); chains created since contracts run
    /// use Ethereum's.
    var stateRoot: StateRootKind = .ethereum
}

/// Where the organiser is, for the proximity check. Coordinates are decimal degrees kept as the
/// text the organiser sent (they are not money; the distance is computed in `Double`).
struct HostLocation: Sendable, Equatable {
    var latitude: String
    var longitude: String
    var radiusMeters: Int64
}

/// An account of a chain's state and the ledger account that mirrors its balance.
/// (`package`: the test harness of this package reads accounts; not API for other packages.)
package struct ChainAccount: Sendable, Equatable {
    var address: EthereumAddress
    var nonce: UInt64
    var balance: UInt128
    var ledgerAccountID: AccountID
    /// The root of its storage trie; `nil` when it has no storage.
    var storageRoot: [UInt8]? = nil
    /// keccak-256 of its code; `nil` when it has none.
    var codeHash: [UInt8]? = nil
}

/// An accepted transaction waiting for a block.
struct PoolEntry: Sendable, Equatable {
    var seq: Int64
    var hash: String
    var sender: EthereumAddress
    var recipient: EthereumAddress
    var nonce: UInt64
    var value: UInt128
    var raw: [UInt8]
}

/// An executed transaction as the explorer and JSON-RPC show it.
struct ChainTransaction: Sendable, Equatable {
    var hash: String
    var blockNumber: UInt64
    var position: Int
    var sender: EthereumAddress
    var recipient: EthereumAddress
    var nonce: UInt64
    var value: UInt128
    var status: UInt8
    var raw: [UInt8]
}

/// A block row: the header fields looked up by, and the stored (compressed) block.
struct StoredBlock: Sendable, Equatable {
    var number: UInt64
    var hash: String
    var parentHash: String
    var timestamp: UInt64
    var transactionCount: Int
    var data: [UInt8]

    func decoded() throws -> LocalChainBlock { try LocalChainBlock.decode(try Zstd.decompress(data)) }
}

/// Ids the rail derives, so that retries and replays land on the same ledger records.
enum LocalChainIDs {
    /// The ledger account mirroring `address` on `chainID`: keccak-256 of a domain-separated
    /// name, cut to 16 bytes and marked as an RFC 9562 version-8 UUID.
    static func ledgerAccount(chainID: UInt64, address: EthereumAddress) -> AccountID {
        AccountID(rawValue: uuid(Keccak256.hash(Array("hubd-localchain-account:\(chainID):\(address)".utf8))))
    }

    /// The ledger transfer mirroring an executed transaction: its hash (already uniformly random)
    /// cut to 16 bytes with the version-8 marks. A signed transaction names its chain, so the same
    /// hash never occurs on two chains.
    static func transfer(transactionHash: [UInt8]) -> TransferID {
        TransferID(rawValue: uuid(transactionHash))
    }

    /// A further ledger transfer of one transaction (value a contract moved on): keccak-256 of a
    /// domain-separated name, so it equals neither the first leg's id nor another transaction's.
    static func transfer(transactionHash: [UInt8], leg: Int) -> TransferID {
        TransferID(rawValue: uuid(Keccak256.hash(Array("hubd-localchain-leg:\(leg):".utf8) + transactionHash)))
    }

    /// The hold reserving a cash-out's payout: keccak-256 of a domain-separated name, so it never
    /// equals the burn's own mirrored transfer id.
    static func cashOutHold(transactionHash: [UInt8]) -> TransferID {
        TransferID(rawValue: uuid(Keccak256.hash(Array("hubd-localchain-cashout:".utf8) + transactionHash)))
    }

    /// The posting or voiding of a cash-out's hold.
    static func cashOutResolution(transactionHash: [UInt8]) -> TransferID {
        TransferID(rawValue: uuid(Keccak256.hash(Array("hubd-localchain-cashout-resolve:".utf8) + transactionHash)))
    }

    static func uuid(_ digest: [UInt8]) -> UInt128 {
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes.reduce(UInt128(0)) { ($0 << 8) | UInt128($1) }
    }

    static func assetCode(chainID: UInt64) -> AssetCode { AssetCode(assetCodePrefix + String(chainID))! }
    /// Every chain's asset code starts with this; the rail reserves the range in the ledger, so
    /// nobody else can create (and pre-mint) the asset of a chain that does not exist yet.
    static let assetCodePrefix = "EVT-"
}
