import HubKernel

/// JSON shapes of the rail's API and event data (`snake_case` by the kernel's encoder; amounts
/// as decimal strings of minor units, times as RFC 3339).
struct SessionRepresentation: Encodable, Sendable {
    struct Payee: Encodable, Sendable {
        var id: String
        var displayName: String
    }
    struct Split: Encodable, Sendable {
        var mode: String
        var payers: Int
    }

    var id: String
    var status: String
    var amount: String
    var asset: String
    var split: Split
    var paidShares: Int
    var heldShares: Int
    var payee: Payee
    var eid: String
    var createdAt: String
    var expiresAt: String
    var endedAt: String?
    var advertisement: AdvertisementRepresentation?

    init(_ session: PaymentSession, withAdvertisement: Bool = false) {
        id = session.id
        status = session.status.rawValue
        amount = String(session.amount)
        asset = session.asset.rawValue
        split = Split(mode: session.splitMode.rawValue, payers: session.shares)
        paidShares = session.paidShares
        heldShares = session.heldShares
        payee = Payee(id: session.payeeID.description, displayName: session.payeeDisplayName)
        eid = session.eid.description
        createdAt = session.createdAt.description
        expiresAt = session.expiresAt.description
        endedAt = session.endedAt?.description
        advertisement = withAdvertisement ? AdvertisementRepresentation(session.eid) : nil
    }
}

/// What the payee's phone puts on air: the exact advertising-data octets (hex) in the service-data
/// form, and the local-name form that the existing Gotchu app uses.
struct AdvertisementRepresentation: Encodable, Sendable {
    var serviceUuid: String
    var data: String
    var localName: String
    var localNameData: String

    init(_ eid: EphemeralID) {
        serviceUuid = Advertisement.serviceUUID
        data = HexText.encode(Advertisement.serviceData(for: eid))
        localName = Advertisement.localName(for: eid)
        localNameData = HexText.encode(Advertisement.localNameData(for: eid))
    }
}

/// What anyone nearby learns from an EID: enough to decide to pay, nothing about the payee
/// beyond their display name.
struct ResolvedSessionRepresentation: Encodable, Sendable {
    var sessionId: String
    var status: String
    var amount: String
    /// The amount one payer pays: the next free share (the whole amount for a single payer).
    var shareAmount: String
    var asset: String
    var payers: Int
    var paidShares: Int
    var payeeDisplayName: String
    var expiresAt: String

    init(_ session: PaymentSession, nextShare: Int) {
        sessionId = session.id
        status = session.status.rawValue
        amount = String(session.amount)
        shareAmount = String(session.shareAmount(nextShare))
        asset = session.asset.rawValue
        payers = session.shares
        paidShares = session.paidShares
        payeeDisplayName = session.payeeDisplayName
        expiresAt = session.expiresAt.description
    }
}

struct LockRepresentation: Encodable, Sendable {
    var id: String
    var sessionId: String
    var share: Int
    var payerId: String
    var amount: String
    var holdTransferId: String
    var state: String
    var lockedAt: String
    var expiresAt: String
    var resolvedAt: String?
    var paymentTransferId: String?

    init(_ lock: SessionLock) {
        id = lock.id
        sessionId = lock.sessionID
        share = lock.share
        payerId = lock.payerID.description
        amount = String(lock.amount)
        holdTransferId = lock.holdID.description
        state = lock.state.rawValue
        lockedAt = lock.lockedAt.description
        expiresAt = lock.expiresAt.description
        resolvedAt = lock.resolvedAt?.description
        paymentTransferId = lock.paymentID?.description
    }
}

/// A session with one of its locks: the answer of lock and pay.
struct SessionWithLockRepresentation: Encodable, Sendable {
    var session: SessionRepresentation
    var lock: LockRepresentation
}

/// A session with every lock it had: the payee's detail view.
struct SessionDetailRepresentation: Encodable, Sendable {
    var session: SessionRepresentation
    var locks: [LockRepresentation]
}
