import HubKernel

/// Opening a session, as a batched step (``BatchedStep``): the sessions opened while one commit
/// waits are written together, their EIDs recorded in one statement.
enum OpenSessionStep {
    /// A session to open, checked and with its payee's wallet and name already read.
    struct Request: Sendable {
        let payee: UserID
        let payeeAccountID: AccountID
        let payeeDisplayName: String
        let asset: AssetCode
        let amount: UInt128
        let splitMode: PaymentSession.SplitMode
        let shares: Int
        let ttlSeconds: Int
    }

    typealias Step = BatchedStep<Request, PaymentSession>

    static func step(source: String) -> Step {
        Step { members in
            guard let first = members.first else { return [] }
            let now = first.unit.now
            var sessions = members.map { member in
                let new = member.request
                return PaymentSession(
                    id: RecordID.timeOrdered().description,
                    payeeID: new.payee,
                    payeeAccountID: new.payeeAccountID,
                    payeeDisplayName: new.payeeDisplayName,
                    asset: new.asset,
                    amount: new.amount,
                    splitMode: new.splitMode,
                    shares: new.shares,
                    paidShares: 0,
                    heldShares: 0,
                    status: .advertising,
                    eid: EphemeralID.random(),
                    eidIssuedAt: now,
                    createdAt: now,
                    expiresAt: now.adding(seconds: new.ttlSeconds),
                    endedAt: nil
                )
            }
            try SessionStore.insert(sessions, on: first.unit.connection)
            // The EIDs drawn above almost always are free: record them at once; only a session
            // whose EID collided (with a stored one, or another of this batch) draws again.
            let recorded = try SessionStore.insertEIDs(sessions.map { (eid: $0.eid, session: $0.id) }, at: now, on: first.unit.connection)
            for index in sessions.indices where recorded[sessions[index].eid] != sessions[index].id {
                sessions[index].eid = try SessionService.issueEID(for: sessions[index].id, at: now, on: first.unit.connection)
                try SessionStore.update(sessions[index], on: first.unit.connection)
            }
            for (member, session) in zip(members, sessions) {
                try member.unit.append([SessionEvents.event(SessionEvents.created, session, at: now, source: source)])
            }
            return sessions
        }
    }
}
