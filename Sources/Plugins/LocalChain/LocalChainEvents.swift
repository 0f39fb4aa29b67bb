import ChainKit
import HubKernel

/// The rail's events (`localchain.*`): `source` is `/rails/localchain`, `subject` the chain id, so a
/// reader can follow one chain; together they are the live feed of blocks and transactions.
enum LocalChainEvents {
    static let chainCreated = "localchain.chain.created"
    static let chainStatusChanged = "localchain.chain.status_changed"
    static let transactionAccepted = "localchain.transaction.accepted"
    static let transactionSealed = "localchain.transaction.sealed"
    static let blockSealed = "localchain.block.sealed"
    /// A transaction the sealer could not include (the ledger refused to mirror it), with why.
    static let transactionDropped = "localchain.transaction.dropped"
    /// Sealing a chain keeps failing (and backs off), or works again.
    static let sealingDegraded = "localchain.chain.sealing_degraded"
    static let sealingRecovered = "localchain.chain.sealing_recovered"

    static let all = [
        chainCreated, chainStatusChanged, transactionAccepted, transactionSealed, blockSealed, transactionDropped, sealingDegraded,
        sealingRecovered,
    ]

    static func created(_ chain: LocalChain, source: String, time: LedgerTimestamp) throws -> NewEvent {
        try event(chainCreated, chain.chainID, ChainRepresentation(chain), source: source, time: time)
    }

    static func statusChanged(_ chain: LocalChain, source: String, time: LedgerTimestamp) throws -> NewEvent {
        try event(chainStatusChanged, chain.chainID, ChainRepresentation(chain), source: source, time: time)
    }

    struct Accepted: Encodable {
        var chainId: UInt64
        var transaction: TransactionRepresentation
    }

    /// The `data` of a transaction's acceptance: encoded before the writer stores it (the
    /// payload holds nothing the write decides).
    static func acceptedData(_ entry: PoolEntry, chainID: UInt64) throws -> String {
        try LocalChainJSON.text(Accepted(chainId: chainID, transaction: TransactionRepresentation(pending: entry)))
    }

    static func accepted(data: String, chainID: UInt64, source: String, time: LedgerTimestamp) -> NewEvent {
        NewEvent(type: transactionAccepted, source: source, subject: String(chainID), data: data, time: time)
    }

    static func sealed(_ t: ChainTransaction, chainID: UInt64, source: String, time: LedgerTimestamp) throws -> NewEvent {
        try event(transactionSealed, chainID, Accepted(chainId: chainID, transaction: TransactionRepresentation(t)), source: source, time: time)
    }

    struct Sealed: Encodable {
        var chainId: UInt64
        var block: BlockRepresentation
    }

    static func blockSealed(_ stored: StoredBlock, _ block: LocalChainBlock, chainID: UInt64, source: String, time: LedgerTimestamp) throws
        -> NewEvent
    {
        try event(blockSealed, chainID, Sealed(chainId: chainID, block: BlockRepresentation(stored, block)), source: source, time: time)
    }

    struct Dropped: Encodable {
        var chainId: UInt64
        var transaction: TransactionRepresentation
    }

    static func dropped(_ dropped: DroppedTransaction, chainID: UInt64, source: String, time: LedgerTimestamp) throws -> NewEvent {
        try event(
            transactionDropped,
            chainID,
            Dropped(chainId: chainID, transaction: TransactionRepresentation(dropped: dropped)),
            source: source,
            time: time
        )
    }

    struct SealingHealth: Encodable {
        var chainId: UInt64
        var error: String?
    }

    static func sealingHealth(_ type: String, chainID: UInt64, error: String?, source: String, time: LedgerTimestamp) throws -> NewEvent {
        try event(type, chainID, SealingHealth(chainId: chainID, error: error), source: source, time: time)
    }

    private static func event(_ type: String, _ chainID: UInt64, _ data: some Encodable, source: String, time: LedgerTimestamp) throws -> NewEvent {
        NewEvent(type: type, source: source, subject: String(chainID), data: try LocalChainJSON.text(data), time: time)
    }
}
