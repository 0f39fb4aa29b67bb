import Foundation
import Synchronization

/// A named lease that makes one instance among several on one database the only one doing some
/// work (sealing a chain's blocks, say), taken over within seconds when its holder dies.
///
/// The lease is a row (`hub_leases`) with a holder, an expiry and an epoch. The holder renews it
/// well before it expires; another instance takes it only once it has expired, and each takeover
/// increments the epoch. Work done under the lease is fenced: ``fence(on:)``, in the same
/// transaction as the work's writes, proves the row still names this instance at its epoch and
/// locks it until the commit, so a holder that was paused past its expiry (a long garbage
/// collection, a stopped VM) cannot commit once another took over: its transaction is refused.
///
/// Expiry is measured with the hub's clock: instances on several machines need their clocks in
/// step (NTP), to within a fraction of ``ttl``.
///
/// ```swift
/// let lease = Lease(name: "localchain:sealer:7", database: database, clock: clock)
/// if try await lease.acquireOrRenew() {
///     try await ledger.write(as: owner) { unit in try lease.fence(on: unit.connection); … }
/// }
/// ```
public final class Lease: Sendable {
    public let name: String
    /// This instance, as the lease's holder.
    public let holder: String
    /// How long a taken or renewed lease lasts.
    public let ttl: Duration
    private let database: Database
    private let clock: LedgerClock
    /// The epoch this instance holds, or `nil` when it does not lead.
    private let held = Mutex<Int64?>(nil)

    public init(name: String, database: Database, clock: LedgerClock = .system, ttl: Duration = .seconds(5), holder: String = Lease.instanceID) {
        self.name = name
        self.database = database
        self.clock = clock
        self.ttl = ttl
        self.holder = holder
    }

    /// One id per process: every lease of this instance names the same holder.
    public static let instanceID = UUID().uuidString.lowercased()

    /// The epoch held, if this instance leads (as of its last acquisition or renewal).
    public var epoch: Int64? { held.withLock { $0 } }

    /// Takes the lease if it is free or expired, renews it if this instance holds it. Returns
    /// whether this instance leads now.
    @discardableResult
    public func acquireOrRenew() async throws -> Bool {
        let now = clock.now()
        let expires = LedgerTimestamp(nanoseconds: now.nanoseconds &+ ttl.nanoseconds)
        let (name, holder) = (self.name, self.holder)
        let epoch: Int64? = try await database.write { connection in
            try connection.queryFirst(
                """
                INSERT INTO hub_leases (name, holder, epoch, expires_at) VALUES (\(name), \(holder), 1, \(expires)) \
                ON CONFLICT (name) DO UPDATE SET \
                epoch = CASE WHEN hub_leases.holder = \(holder) THEN hub_leases.epoch ELSE hub_leases.epoch + 1 END, \
                holder = \(holder), expires_at = \(expires) \
                WHERE hub_leases.holder = \(holder) OR hub_leases.expires_at <= \(now) \
                RETURNING epoch
                """
            )?.int("epoch")
        }
        held.withLock { $0 = epoch }
        return epoch != nil
    }

    /// Gives the lease up at once (a stopping leader), so another instance need not wait for it to
    /// expire.
    public func release() async throws {
        let (name, holder) = (self.name, self.holder)
        held.withLock { $0 = nil }
        _ = try await database.write { connection in
            try connection.execute("UPDATE hub_leases SET expires_at = 0 WHERE name = \(name) AND holder = \(holder)")
        }
    }

    /// Proves, inside the caller's transaction, that this instance still holds the lease at the
    /// epoch it took and that it has not expired; the row stays locked until the commit
    /// (PostgreSQL), so no takeover commits in between.
    /// - Throws: ``LeaseLost`` otherwise, which rolls the caller's work back.
    public func fence(on connection: any SQLConnection) throws {
        guard let epoch = self.epoch else { throw LeaseLost(name: name) }
        let now = clock.now()
        let lock: SQL = connection.dialect == .postgres ? " FOR SHARE" : ""
        let row = try connection.queryFirst(
            "SELECT epoch FROM hub_leases WHERE name = \(name) AND holder = \(holder) AND epoch = \(epoch) AND expires_at > \(now)" + lock
        )
        guard row != nil else {
            held.withLock { if $0 == epoch { $0 = nil } }
            throw LeaseLost(name: name)
        }
    }

    static let migration = Migration(
        "011_leases",
        portable: """
            CREATE TABLE hub_leases (
                name TEXT PRIMARY KEY,
                holder TEXT NOT NULL,
                epoch {bigint} NOT NULL,
                expires_at {bigint} NOT NULL
            );
            """
    )
}

/// Work fenced by a lease this instance no longer holds: another instance took over.
public struct LeaseLost: HubError, CustomStringConvertible {
    public let name: String
    public var kind: HubErrorKind { .unavailable }
    public var errorCode: String { "lease_lost" }
    public var message: String { "this instance no longer holds the lease '\(name)'; another instance does this work now" }
    public var description: String { message }
}
