public import Logging
public import Metrics
public import ServiceLifecycle
import Synchronization

/// Settings of the ledger, with defaults for production.
public struct LedgerConfiguration: Sendable {
    /// Transfers per request at most, and per database transaction at most (a larger request
    /// still runs alone in one transaction).
    public var maxBatchTransfers = 10_000
    /// How often overdue holds are voided.
    public var expiryInterval: Duration = .seconds(1)
    /// Holds voided per expiry transaction.
    public var expiryBatchLimit = 1_000

    public init() {}
}

/// The double-entry ledger: assets, accounts with balance rules, transfers (immediate, two-phase,
/// linked), each change appended to the event outbox in the same transaction.
///
/// Writes go through one writer per process that batches concurrent requests (group commit); it
/// and the expiry sweeper are ``services``, which the caller runs (in `hubd`, the server's
/// `ServiceGroup`).
///
/// ```swift
/// let ledger = Ledger(database: db, logger: logger)
/// // run ledger.services in a ServiceGroup, then:
/// let result = try await ledger.submit(TransferRequest(id: .random(), action: .post(debit: a, credit: b, amount: 500, asset: usd)))
/// ```
public final class Ledger: Sendable {
    public let database: Database
    public let configuration: LedgerConfiguration
    public let clock: LedgerClock
    let writer: KernelWriter
    let logger: Logger
    let observer: LedgerObserver
    /// Asset-code ranges rails keep for themselves (see ``reserveAssetCodes(prefix:rail:)``).
    let assetCodeReservations = AssetCodeReservations()
    /// Scales of assets read so far: a scale never changes once the asset exists.
    let knownScales = Mutex<[AssetCode: UInt8]>([:])

    /// The kernel's migrations (ledger, counters, event outbox).
    public static var migrations: [Migration] { KernelMigrations.all }

    /// - Parameters:
    ///   - metrics: where to count transfers by result (`hub_ledger_transfers_total`) and the writer's
    ///     group commits (`hub_writer_*`); none by default.
    ///   - onCommit: called after each commit that appended events, with the sequence of the
    ///     newest when the writer knows it (the event bus's ``EventBus/committed(through:)``).
    public init(
        database: Database,
        configuration: LedgerConfiguration = .init(),
        clock: LedgerClock = .system,
        logger: Logger,
        metrics: (any MetricsFactory)? = nil,
        onCommit: @escaping @Sendable (_ lastEvent: Int64?) -> Void = { _ in }
    ) {
        self.observer = LedgerObserver(metrics: metrics, onCommit: onCommit)
        self.database = database
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        writer = KernelWriter(database: database, clock: clock, maxBatchTransfers: configuration.maxBatchTransfers, observer: observer)
    }

    /// The writer and the expiry sweeper. Run them for as long as the ledger is used.
    public var services: [any Service] {
        [writer, PendingExpiryService(ledger: self, interval: configuration.expiryInterval, logger: logger)]
    }

    /// Reserves the asset codes starting with `prefix` for `rail`: ``createAsset(_:)`` then
    /// creates them only with `NewAsset.rail == rail`, and refuses everybody else with
    /// `asset_code_reserved`. Rails call it when they are constructed.
    public func reserveAssetCodes(prefix: String, rail: String) {
        assetCodeReservations.reserve(prefix: prefix, rail: rail)
    }

    /// The rail that reserved `code`'s range, if any.
    public func railReserving(_ code: AssetCode) -> String? {
        assetCodeReservations.rail(reserving: code)
    }

    // MARK: Transfers

    /// Applies a batch of transfers in one database transaction and returns one result per
    /// transfer, in order. Linked chains succeed or fail as a whole; a retried id with the same
    /// fields returns `exists`.
    /// - Throws: a `TransferError` with code `batch_too_large` for more than `maxBatchTransfers`;
    ///   ``LedgerError/writerNotRunning`` after the writer service stopped; a
    ///   ``DatabaseError`` when the transaction failed (then nothing was applied).
    public func submit(_ requests: [TransferRequest]) async throws -> [TransferResult] {
        guard !requests.isEmpty else { return [] }
        guard requests.count <= configuration.maxBatchTransfers else {
            throw TransferError(.batchTooLarge, "a batch holds at most \(configuration.maxBatchTransfers) transfers, got \(requests.count)")
        }
        return try await withCheckedThrowingContinuation { continuation in
            writer.enqueue(.transfers(requests, continuation))
        }
    }

    /// How many database transactions the writer ran and how many requests they carried.
    public var writerStatistics: WriterStatistics { writer.statistics }

    /// Applies one transfer.
    public func submit(_ request: TransferRequest) async throws -> TransferResult {
        try await submit([request])[0]
    }

    /// Voids up to `limit` holds whose timeout has passed and returns how many it voided.
    @discardableResult
    public func expireDue(limit: Int? = nil) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            writer.enqueue(.expire(limit: limit ?? configuration.expiryBatchLimit, continuation))
        }
    }

    // MARK: Reads

    public func transfer(_ id: TransferID) async throws -> Transfer? {
        try await database.read { try LedgerStore.transfer(id, on: $0) }
    }

    public func pendingStatus(_ id: TransferID) async throws -> PendingStatus? {
        try await database.read { try LedgerStore.pendingStatus(id, locking: false, on: $0) }
    }

    public func account(_ id: AccountID) async throws -> Account? {
        try await accounts([id]).first
    }

    /// The accounts that exist among `ids`, in no particular order.
    public func accounts(_ ids: [AccountID]) async throws -> [Account] {
        try await database.read { try LedgerStore.accounts(ids, locking: false, on: $0) }
    }

    /// The accounts of an owner (of one asset, when given) created after `after` (a cursor),
    /// oldest first, at most `limit`.
    public func accounts(ownedBy owner: AccountOwner, asset: AssetCode? = nil, after: LedgerTimestamp?, limit: Int) async throws -> [Account] {
        try await database.read { try LedgerStore.accounts(ownedBy: owner, asset: asset, after: after, limit: limit, on: $0) }
    }

    /// The accounts of an owner, ordered by creation.
    public func accounts(ownedBy owner: AccountOwner) async throws -> [Account] {
        try await database.read { try LedgerStore.accounts(ownedBy: owner, asset: nil, after: nil, limit: nil, on: $0) }
    }

    /// Transfers that debit or credit `account`, oldest first, after `after` (a cursor).
    public func transfers(account: AccountID, after: LedgerTimestamp? = nil, limit: Int = 100) async throws -> [Transfer] {
        try await database.read { try LedgerStore.transfers(of: account, after: after, newestFirst: false, limit: limit, on: $0) }
    }

    /// The newest `limit` transfers that debit or credit `account`, newest first.
    public func recentTransfers(account: AccountID, limit: Int) async throws -> [Transfer] {
        try await database.read { try LedgerStore.transfers(of: account, after: nil, newestFirst: true, limit: limit, on: $0) }
    }
}
