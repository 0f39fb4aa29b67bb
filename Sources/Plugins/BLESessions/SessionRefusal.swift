import HubKernel

/// The rail's refusals, as domain errors of the kernel's error protocol: the service throws them
/// (or returns them from a step that commits what the refusal itself changed), and the kernel
/// answers each as a problem with its stable code and the status of its kind. Every one is
/// raised before anything changes, or inside a unit of work that then rolls back.
struct SessionRefusal: HubError, Equatable {
    /// What was refused; the raw value is the stable machine code clients switch on.
    enum Reason: String, Sendable, CaseIterable {
        case sessionNotFound = "not_found"
        case eidNotFound = "eid_not_found"
        case sessionExpired = "session_expired"
        case sessionCancelled = "session_cancelled"
        case sessionPaid = "session_paid"
        case sessionLocked = "session_locked"
        case shareAlreadyPaid = "share_already_paid"
        case sessionNotLocked = "session_not_locked"
        case lockExpired = "lock_expired"
        case cannotPaySelf = "cannot_pay_self"
        case insufficientFunds = "insufficient_funds"
        case walletNotFound = "wallet_not_found"
        /// The ledger refused the step's transfer for a reason of its own; the code is the ledger's.
        case ledgerRefused = "ledger_refused"
        case invalidField = "invalid_field"
        case assetNotFound = "asset_not_found"

        var kind: HubErrorKind {
            switch self {
            case .sessionNotFound, .eidNotFound: .notFound
            // Over for good: a client should stop retrying this session or lock.
            case .sessionExpired, .sessionCancelled, .lockExpired: .gone
            case .sessionPaid, .sessionLocked, .shareAlreadyPaid, .sessionNotLocked: .conflict
            case .cannotPaySelf, .insufficientFunds, .walletNotFound, .ledgerRefused: .refused
            case .invalidField, .assetNotFound: .invalidField
            }
        }
    }

    let reason: Reason
    let errorCode: String
    let message: String
    let field: String?

    init(_ reason: Reason, _ message: String, field: String? = nil, code: String? = nil) {
        self.reason = reason
        self.errorCode = code ?? reason.rawValue
        self.message = message
        self.field = field
    }

    var kind: HubErrorKind { reason.kind }
}

extension SessionRefusal {
    static func notFound() -> SessionRefusal {
        SessionRefusal(.sessionNotFound, "No session with that id, or you may not see it.")
    }

    static func unknownEID() -> SessionRefusal {
        SessionRefusal(.eidNotFound, "No open session advertises that id (it may have rotated or never existed).")
    }

    static func expired(_ session: PaymentSession) -> SessionRefusal {
        SessionRefusal(.sessionExpired, "The session expired at \(session.expiresAt).")
    }

    static func cancelled() -> SessionRefusal {
        SessionRefusal(.sessionCancelled, "The payee cancelled the session.")
    }

    static func alreadyPaid() -> SessionRefusal {
        SessionRefusal(.sessionPaid, "The session is paid.")
    }

    static func busy() -> SessionRefusal {
        SessionRefusal(.sessionLocked, "Another payer holds the session (every unpaid share is locked).")
    }

    static func shareAlreadyPaid() -> SessionRefusal {
        SessionRefusal(.shareAlreadyPaid, "You have already paid your share of this session.")
    }

    static func notLocked() -> SessionRefusal {
        SessionRefusal(.sessionNotLocked, "Lock the session before paying it.")
    }

    static func lockExpired(_ lock: SessionLock) -> SessionRefusal {
        SessionRefusal(.lockExpired, "Your lock expired at \(lock.expiresAt); its hold was released. Lock the session again.")
    }

    /// Why a session that has ended takes no more steps.
    static func ended(_ session: PaymentSession) -> SessionRefusal {
        switch session.status {
        case .paid: alreadyPaid()
        case .cancelled: cancelled()
        default: expired(session)
        }
    }

    static func cannotPaySelf() -> SessionRefusal {
        SessionRefusal(.cannotPaySelf, "The payee cannot pay their own session.")
    }

    static func insufficientFunds(_ amount: UInt128, _ asset: AssetCode) -> SessionRefusal {
        SessionRefusal(.insufficientFunds, "Your \(asset) wallet cannot cover \(amount) minor units.")
    }

    static func noWallet(_ asset: AssetCode) -> SessionRefusal {
        SessionRefusal(.walletNotFound, "You have no \(asset) wallet to pay from.")
    }

    static func ledgerRefused(_ error: TransferError) -> SessionRefusal {
        SessionRefusal(.ledgerRefused, error.message, code: error.code.rawValue)
    }

    /// A field of a new session out of range.
    static func invalid(_ field: String, _ message: String) -> SessionRefusal {
        SessionRefusal(.invalidField, message, field: field)
    }

    static func noAsset(_ code: AssetCode) -> SessionRefusal {
        SessionRefusal(.assetNotFound, "No asset \(code) on this hub.", field: "asset")
    }
}
