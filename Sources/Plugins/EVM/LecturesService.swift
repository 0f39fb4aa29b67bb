import ChainKit
import Foundation
import HubKernel

/// Paid courses on the chain's `Lectures` contract: every write an operation sent from the
/// caller's custodial account (settling, and an admin's cancel, from the platform account). The
/// contract holds the rules; a call it would refuse is refused before anything is signed. After
/// each confirmed operation the tracker reads the lecture, its runs and the seat back from the
/// chain (``LectureEffects``), so the rail's index follows the chain.
struct LecturesService: Sendable {
    let context: PluginContext
    let chains: EVMChains
    let accounts: CustodialAccounts
    let contracts: MarketplaceContracts
    let sender: TransactionSender

    enum Action: String, Sendable, CaseIterable {
        case purchase, attendance, evaluate, settle, cancel, refund, rerun
    }

    /// A lecture's off-chain details (as ChungChoon's server kept them) and its first run.
    struct NewLecture: Sendable {
        var chain: String?
        var title: String
        var kind: String
        var target: String
        var place: String
        var period: String
        var curriculum: [String]
        var price: UInt256
        var capacity: UInt64
        var sessions: UInt64
        var minAttendance: UInt64
        var endTime: UInt64
    }

    /// What an action carries besides the lecture: a run's terms, a session and its student, scores.
    struct ActionInput: Sendable {
        var price: UInt256?
        var capacity: UInt64?
        var endTime: UInt64?
        var session: UInt64?
        var student: String?
        var scores: [UInt64]?
        var review: String?
        var run: UInt64?
    }

    static let maxCapacity: UInt64 = 100_000
    /// The longest run the rail opens, in seconds: a course may last a school year.
    static let longestRun: UInt64 = 400 * 86_400

    func create(_ new: NewLecture, by user: UserID) async throws -> EVMWriteResult {
        let title = try ItemsService.text(new.title, field: "title", max: 100)
        let kind = try ItemsService.text(new.kind, field: "kind", max: 40)
        let target = try ItemsService.text(new.target, field: "target", max: 200, allowEmpty: true)
        let place = try ItemsService.text(new.place, field: "place", max: 200, allowEmpty: true)
        let period = try ItemsService.text(new.period, field: "period", max: 100, allowEmpty: true)
        guard new.curriculum.count <= 50 else { throw EVMError.invalid("curriculum", "A curriculum has at most 50 items.") }
        let curriculum = try new.curriculum.map { try ItemsService.text($0, field: "curriculum", max: 200) }
        guard (1...256).contains(new.sessions) else { throw EVMError.invalid("sessions", "A run has 1 to 256 sessions.") }
        guard (1...new.sessions).contains(new.minAttendance) else {
            throw EVMError.invalid("min_attendance", "The attendance needed to evaluate is 1 to the number of sessions.")
        }
        try Self.checkTerms(price: new.price, capacity: new.capacity, endTime: new.endTime)
        let chain = try chains.settings(new.chain)
        let client = try chains.client(chain)
        let lectures = try await contracts.lectures(on: chain, client: client)
        let signer = try await accounts.signer(user: user, chain: chain.id)
        let curriculumJSON = String(decoding: try JSONEncoder().encode(curriculum), as: UTF8.self)
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "lecture.create",
                subject: lectures.checksummed,
                details: [
                    "action": "create", "run": "0", "user_id": user.description, "title": title, "kind": kind, "target": target,
                    "place": place, "period": period, "curriculum": curriculumJSON,
                ],
                to: lectures,
                data: try ABI.calldata(
                    "createLecture(uint256,uint256,uint256,uint256,uint256)",
                    types: Array(repeating: .uint(bits: 256), count: 5),
                    values: [
                        .uint(new.price), .uint(UInt256(new.capacity)), .uint(UInt256(new.sessions)), .uint(UInt256(new.minAttendance)),
                        .uint(UInt256(new.endTime)),
                    ]
                )
            ),
            by: signer
        )
    }

    static func checkTerms(price: UInt256?, capacity: UInt64?, endTime: UInt64?) throws {
        guard let price, !price.isZero else { throw EVMError.invalid("price", "A seat's price is more than zero.") }
        guard let capacity, (1...maxCapacity).contains(capacity) else {
            throw EVMError.invalid("capacity", "A run has 1 to \(maxCapacity) seats.")
        }
        let now = UInt64(Date().timeIntervalSince1970)
        guard let endTime, endTime > now, endTime - now <= longestRun else {
            throw EVMError.invalid("end_time", "A run ends in the future (Unix seconds), within \(longestRun / 86_400) days.")
        }
    }

    /// An action on lecture `lectureID`, signed by the caller, except settling (the platform
    /// account signs for the lecture's teacher or an admin) and an admin's cancel.
    func act(_ action: Action, chain chainName: String, lectureID: UInt64, input: ActionInput, by principal: Principal) async throws
        -> EVMWriteResult
    {
        let chain = try chains.settings(chainName)
        let client = try chains.client(chain)
        let contract = try await contracts.lectures(on: chain, client: client)
        let lecture = try await read(lectureID, contract: contract, chain: chain, client: client)
        let current = lecture.runCount - 1
        let user = principal.userID
        let caller = try? await accounts.signer(user: user, chain: chain.id)
        let isTeacher = caller?.address == lecture.teacher
        let id = ABIValue.uint(UInt256(lectureID))
        let word = ABIType.uint(bits: 256)
        var details = ["lecture_id": String(lectureID), "action": action.rawValue, "run": String(current), "user_id": user.description]
        var signer = Signer.caller
        var value = UInt256.zero
        let data: [UInt8]
        switch action {
        case .purchase:
            let run = try await readRun(lectureID, run: current, contract: contract, chain: chain, client: client)
            value = try UInt256(decimal: run.price)
            data = try ABI.calldata("purchase(uint256)", types: [word], values: [id])
        case .attendance:
            guard let session = input.session else { throw EVMError.invalid("session", "Attendance names its session (0-based).") }
            guard let text = input.student, let student = try? EthereumAddress(text) else {
                throw EVMError.invalid("student", "Attendance names the student's address.")
            }
            details["student"] = student.checksummed
            data = try ABI.calldata(
                "recordAttendance(uint256,uint256,address)",
                types: [word, word, .address],
                values: [id, .uint(UInt256(session)), .address(student)]
            )
        case .evaluate:
            guard let scores = input.scores, scores.count == 5, scores.allSatisfy({ $0 <= 100 }) else {
                throw EVMError.invalid("scores", "An evaluation is five scores, each 0 to 100.")
            }
            if let review = input.review { details["review"] = try ItemsService.text(review, field: "review", max: 2_000, allowEmpty: true) }
            data = try ABI.calldata(
                "evaluate(uint256,uint256[5])",
                types: [word, .fixedArray(word, 5)],
                values: [id, .array(scores.map { .uint(UInt256($0)) })]
            )
        case .settle:
            guard isTeacher || principal.isAdmin else {
                throw EVMError(kind: .forbidden, errorCode: "not_teacher", message: "Only the lecture's teacher or an admin settles a run.")
            }
            signer = .platform
            data = try ABI.calldata("settle(uint256)", types: [word], values: [id])
        case .cancel:
            guard isTeacher || principal.isAdmin else {
                throw EVMError(kind: .forbidden, errorCode: "not_teacher", message: "Only the lecture's teacher or an admin cancels a run.")
            }
            if !isTeacher { signer = .platform }
            data = try ABI.calldata("cancelRun(uint256)", types: [word], values: [id])
        case .refund:
            let run = input.run ?? current
            guard run < lecture.runCount else { throw EVMError.invalid("run", "Lecture \(lectureID) has runs 0 to \(current).") }
            details["run"] = String(run)
            data = try ABI.calldata("refund(uint256,uint256)", types: [word, word], values: [id, .uint(UInt256(run))])
        case .rerun:
            try Self.checkTerms(price: input.price, capacity: input.capacity, endTime: input.endTime)
            details["run"] = String(lecture.runCount)
            data = try ABI.calldata(
                "rerunLecture(uint256,uint256,uint256,uint256)",
                types: [word, word, word, word],
                values: [id, .uint(input.price ?? .zero), .uint(UInt256(input.capacity ?? 0)), .uint(UInt256(input.endTime ?? 0))]
            )
        }
        let sending: EVMSigner
        switch signer {
        case .platform:
            let platform = try await contracts.platformKey(chain)
            sending = .custodial(address: platform.address, key: platform.key)
        case .caller:
            guard let caller else { throw EVMError.accountNotFound("on chain \(chain.id)") }
            sending = caller
        }
        if [.purchase, .evaluate, .refund].contains(action) { details["student"] = sending.address.checksummed }
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "lecture.\(action.rawValue)",
                subject: contract.checksummed,
                details: details,
                to: contract,
                value: value,
                data: data
            ),
            by: sending
        )
    }

    /// Who signs an action: the caller (custodial or their own wallet), or the platform account.
    private enum Signer { case caller, platform }

    /// Collects what the courses contract owes the caller (a teacher's settled earnings, the
    /// platform's fee).
    func withdraw(chain chainName: String?, by user: UserID) async throws -> EVMWriteResult {
        let chain = try chains.settings(chainName)
        let client = try chains.client(chain)
        let contract = try await contracts.lectures(on: chain, client: client)
        let signer = try await accounts.signer(user: user, chain: chain.id)
        return try await sender.dispatch(
            TransactionSender.Request(
                chain: chain,
                client: client,
                userID: user,
                kind: "lecture.withdraw",
                subject: contract.checksummed,
                details: ["action": "withdraw"],
                to: contract,
                data: try ABI.calldata("withdraw()", types: [], values: [])
            ),
            by: signer
        )
    }

    /// A teacher's earnings on a chain: what the contract holds for them to withdraw, and what
    /// their settled runs paid them in all (decimal text).
    func earnings(chain chainName: String?, user: UserID) async throws -> (chain: String, address: String?, pending: String, settled: String) {
        let chain = try chains.settings(chainName)
        guard let address = (try? await accounts.signer(user: user, chain: chain.id))?.address else { return (chain.id, nil, "0", "0") }
        let client = try chains.client(chain)
        let contract = try await contracts.lectures(on: chain, client: client)
        let pending = try await client.pendingWithdrawal(contract, of: address)
        let amounts = try await context.database.read { connection in
            try connection.query(
                """
                SELECT r.teacher_amount FROM evm_lecture_runs r JOIN evm_lectures l ON l.chain = r.chain AND l.lecture_id = r.lecture_id \
                WHERE l.chain = \(chain.id) AND l.teacher = \(address.checksummed) AND r.state = 'settled'
                """
            ).map { try $0.optionalText("teacher_amount") }
        }
        var settled = UInt256.zero
        for amount in amounts.compactMap({ $0 }) {
            settled = settled.addingReportingOverflow(try UInt256(decimal: amount)).partialValue
        }
        return (chain.id, address.checksummed, pending.description, settled.description)
    }

    func read(_ lectureID: UInt64, contract: EthereumAddress, chain: EVMChainSettings, client: ChainClient) async throws -> Lecture.OnChain {
        let data = try await client.ethCall(
            to: contract,
            data: try ABI.calldata("lecture(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(lectureID))])
        )
        return try Lecture.OnChain(lectureID: lectureID, chain: chain.id, returned: data)
    }

    func readRun(_ lectureID: UInt64, run: UInt64, contract: EthereumAddress, chain: EVMChainSettings, client: ChainClient) async throws
        -> LectureRun
    {
        let data = try await client.ethCall(
            to: contract,
            data: try ABI.calldata(
                "run(uint256,uint256)",
                types: [.uint(bits: 256), .uint(bits: 256)],
                values: [.uint(UInt256(lectureID)), .uint(UInt256(run))]
            )
        )
        return try LectureRun(lectureID: lectureID, run: run, chain: chain.id, returned: data)
    }

    // MARK: - The index

    enum Role: String { case teacher, student }

    /// Lectures, most recently changed first: all of them, or those the user teaches or attends.
    func lectures(role: Role?, user: UserID, limit: Int) async throws -> [Lecture] {
        try await context.database.read { connection in
            var statement: SQL = "SELECT \(Lecture.columns) FROM evm_lectures l"
            switch role {
            case .teacher: statement = statement + " WHERE teacher_id = \(user.description)"
            case .student:
                statement =
                    statement
                    + " WHERE EXISTS (SELECT 1 FROM evm_lecture_seats s WHERE s.chain = l.chain AND s.lecture_id = l.lecture_id AND s.user_id = \(user.description))"
            case nil: break
            }
            return try connection.query(statement + " ORDER BY updated_at DESC, lecture_id DESC LIMIT \(limit)").map(Lecture.init)
        }
    }

    func lecture(chain: String, id: UInt64) async throws -> (Lecture, [LectureRun])? {
        try await context.database.read { connection in
            guard
                let lecture = try connection.queryFirst(
                    "SELECT \(Lecture.columns) FROM evm_lectures WHERE chain = \(chain) AND lecture_id = \(Int64(id))"
                ).map(Lecture.init)
            else { return nil }
            let runs = try connection.query(
                "SELECT \(LectureRun.columns) FROM evm_lecture_runs WHERE chain = \(chain) AND lecture_id = \(Int64(id)) ORDER BY run"
            ).map(LectureRun.init)
            return (lecture, runs)
        }
    }

    /// The seats of a lecture: every one (for its teacher) or one user's.
    func seats(chain: String, id: UInt64, user: UserID?) async throws -> [LectureSeat] {
        try await context.database.read { connection in
            var statement: SQL = "SELECT \(LectureSeat.columns) FROM evm_lecture_seats WHERE chain = \(chain) AND lecture_id = \(Int64(id))"
            if let user { statement = statement + " AND user_id = \(user.description)" }
            return try connection.query(statement + " ORDER BY run, student").map(LectureSeat.init)
        }
    }
}
