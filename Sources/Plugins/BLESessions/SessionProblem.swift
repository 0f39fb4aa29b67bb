import HTTPTypes
import HubKernel

/// The rail's refusals, each a problem with a stable code. Every one is raised before anything
/// changes, or inside a transaction that then rolls back.
enum SessionProblem {
    static func notFound() -> Problem { .notFound("session") }

    static func unknownEID() -> Problem {
        Problem(.notFound, code: "eid_not_found", detail: "No open session advertises that id (it may have rotated or never existed).")
    }

    static func expired(_ session: PaymentSession) -> Problem {
        Problem(.gone, code: "session_expired", detail: "The session expired at \(session.expiresAt).")
    }

    static func cancelled() -> Problem {
        Problem(.gone, code: "session_cancelled", detail: "The payee cancelled the session.")
    }

    static func alreadyPaid() -> Problem {
        Problem(.conflict, code: "session_paid", detail: "The session is paid.")
    }

    static func busy() -> Problem {
        Problem(.conflict, code: "session_locked", detail: "Another payer holds the session (every unpaid share is locked).")
    }

    static func shareAlreadyPaid() -> Problem {
        Problem(.conflict, code: "share_already_paid", detail: "You have already paid your share of this session.")
    }

    static func notLocked() -> Problem {
        Problem(.conflict, code: "session_not_locked", detail: "Lock the session before paying it.")
    }

    static func lockExpired(_ lock: SessionLock) -> Problem {
        Problem(.gone, code: "lock_expired", detail: "Your lock expired at \(lock.expiresAt); its hold was released. Lock the session again.")
    }

    static func ended(_ session: PaymentSession) -> Problem {
        switch session.status {
        case .paid: alreadyPaid()
        case .cancelled: cancelled()
        default: expired(session)
        }
    }

    static func cannotPaySelf() -> Problem {
        Problem(.unprocessableContent, code: "cannot_pay_self", detail: "The payee cannot pay their own session.")
    }

    static func insufficientFunds(_ amount: UInt128, _ asset: AssetCode) -> Problem {
        Problem(.unprocessableContent, code: "insufficient_funds", detail: "Your \(asset) wallet cannot cover \(amount) minor units.")
    }

    static func noWallet(_ asset: AssetCode) -> Problem {
        Problem(.unprocessableContent, code: "wallet_not_found", detail: "You have no \(asset) wallet to pay from.")
    }

    static func ledgerRefused(_ error: TransferError) -> Problem {
        Problem(.unprocessableContent, code: error.code.rawValue, detail: error.message)
    }

    static func idempotencyKeyRequired() -> Problem {
        Problem(.badRequest, code: "idempotency_key_required", detail: "Paying needs an Idempotency-Key header, so a retry cannot pay twice.")
    }
}
