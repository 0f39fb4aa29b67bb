import Foundation
import HubKernel

/// The rail's events (`ble.session.*`), one per transition, appended in the transaction that makes
/// it. `subject` is the session id; `data` carries the session as the API shows it (without its
/// advertisement) and, where a payer is involved, their lock.
enum SessionEvents {
    static let created = "ble.session.created"
    static let locked = "ble.session.locked"
    static let lockExpired = "ble.session.lock_expired"
    static let paid = "ble.session.paid"
    static let expired = "ble.session.expired"
    static let cancelled = "ble.session.cancelled"
    static let eidRotated = "ble.session.eid_rotated"

    static let all = [created, locked, lockExpired, paid, expired, cancelled, eidRotated]

    struct Data: Encodable {
        var session: SessionRepresentation
        var lock: LockRepresentation?
        /// Locks the transition released (a cancel or an expiry while shares were held).
        var releasedLocks: [LockRepresentation]?
        /// The EID a rotation replaced, and until when it still resolves.
        var previousEid: String?
        var previousEidValidUntil: String?
    }

    static func event(
        _ type: String,
        _ session: PaymentSession,
        lock: SessionLock? = nil,
        released: [SessionLock]? = nil,
        previousEID: (EphemeralID, LedgerTimestamp)? = nil,
        at time: LedgerTimestamp,
        source: String
    ) throws -> NewEvent {
        let data = Data(
            session: SessionRepresentation(session),
            lock: lock.map(LockRepresentation.init),
            releasedLocks: released.map { $0.map(LockRepresentation.init) },
            previousEid: previousEID?.0.description,
            previousEidValidUntil: previousEID?.1.description
        )
        return NewEvent(type: type, source: source, subject: session.id, data: try json(data), time: time)
    }

    /// A payer's lock or pay: the data is the session with the payer's lock, the step's answer
    /// already encoded (the same JSON as ``Data`` with `session` and `lock`).
    static func event(_ type: String, _ answered: ShareSteps.Answered, at time: LedgerTimestamp, source: String) -> NewEvent {
        NewEvent(type: type, source: source, subject: answered.session.id, data: String(decoding: answered.reply.body, as: UTF8.self), time: time)
    }

    private static func json(_ value: some Encodable) throws -> String { try EventJSON.text(value) }
}
