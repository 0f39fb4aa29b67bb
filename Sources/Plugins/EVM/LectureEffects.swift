import ChainKit
import Foundation
import HubKernel

/// What a confirmed operation on the `Lectures` contract changes in the rail's index: the lecture,
/// every run of it and the seat the operation touched, all read back from the chain after the
/// receipt, so the index says what the contract says (``OperationTracker``).
struct LectureEffect: Sendable {
    var chain: String
    var lectureID: UInt64
    var action: String
    var onChain: Lecture.OnChain
    var runs: [LectureRun]
    var seat: LectureSeat?
    var details: [String: String]
    var contract: EthereumAddress
    /// The platform account, paid the fee at settlement (read only where the ledger mirrors).
    var platform: EthereumAddress?

    static let createdTopic = Hex.encode(ABI.eventTopic("LectureCreated(uint256,address,uint256,uint256)"))

    static func read(
        operation: OperationTracker.Pending,
        receipt: [String: Any],
        chain: EVMChainSettings,
        client: ChainClient
    ) async throws -> LectureEffect? {
        let action = String(operation.kind.dropFirst("lecture.".count))
        guard action != "withdraw" else { return nil }
        guard let contractText = receipt["to"] as? String, let contract = try? EthereumAddress(contractText) else {
            throw EVMError.invalid("receipt", "a lecture operation's receipt names no contract")
        }
        var lectureID = operation.details["lecture_id"].flatMap { UInt64($0) }
        if lectureID == nil {
            let logs = receipt["logs"] as? [[String: Any]] ?? []
            let created = logs.first { ($0["topics"] as? [String])?.first == Self.createdTopic }
            lectureID = ((created?["topics"] as? [String])?[1]).flatMap(OperationTracker.Effects.uint64(topic:))
        }
        guard let lectureID, lectureID <= UInt64(Int64.max) else {
            throw EVMError.invalid("receipt", "a new lecture's receipt names no lecture id")
        }
        let lectureReturned = try await client.ethCall(
            to: contract,
            data: try ABI.calldata("lecture(uint256)", types: [.uint(bits: 256)], values: [.uint(UInt256(lectureID))])
        )
        let lecture = try Lecture.OnChain(lectureID: lectureID, chain: chain.id, returned: lectureReturned)
        var runs: [LectureRun] = []
        for index in 0..<min(lecture.runCount, 5) {
            let runReturned = try await client.ethCall(
                to: contract,
                data: try ABI.calldata(
                    "run(uint256,uint256)",
                    types: [.uint(bits: 256), .uint(bits: 256)],
                    values: [.uint(UInt256(lectureID)), .uint(UInt256(index))]
                )
            )
            var run = try LectureRun(lectureID: lectureID, run: index, chain: chain.id, returned: runReturned)
            if run.state == "settled" { try await addSettlement(to: &run, contract: contract, client: client) }
            runs.append(run)
        }
        var seat: LectureSeat?
        if let text = operation.details["student"], let student = try? EthereumAddress(text),
            let run = operation.details["run"].flatMap({ UInt64($0) })
        {
            seat = try LectureSeat(
                run: run,
                student: student,
                returned: try await client.ethCall(
                    to: contract,
                    data: try ABI.calldata(
                        "seat(uint256,uint256,address)",
                        types: [.uint(bits: 256), .uint(bits: 256), .address],
                        values: [.uint(UInt256(lectureID)), .uint(UInt256(run)), .address(student)]
                    )
                )
            )
        }
        var platform: EthereumAddress?
        if ContractLedger.mirrors(chain) {
            let word = try await client.ethCall(to: contract, data: try ABI.calldata("platform()", types: [], values: []))
            guard case .address(let address)? = try ABI.decode([.address], word).first else {
                throw EVMError.chainUnavailable(chain.id, "the courses contract names no platform")
            }
            platform = address
        }
        return LectureEffect(
            chain: chain.id,
            lectureID: lectureID,
            action: action,
            onChain: lecture,
            runs: runs,
            seat: seat,
            details: operation.details,
            contract: contract,
            platform: platform
        )
    }

    /// The contract's own split of a settled run (`settlementOf(total, average)`), so the index
    /// shows exactly what it paid.
    private static func addSettlement(to run: inout LectureRun, contract: EthereumAddress, client: ChainClient) async throws {
        let data = try await client.ethCall(
            to: contract,
            data: try ABI.calldata(
                "settlementOf(uint256,uint256)",
                types: [.uint(bits: 256), .uint(bits: 256)],
                values: [.uint(try UInt256(decimal: run.total)), .uint(UInt256(run.average))]
            )
        )
        let values = try ABI.decode([.uint(bits: 256), .uint(bits: 256), .uint(bits: 256)], data)
        guard values.count == 3, case .uint(let fee) = values[0], case .uint(let incentive) = values[1], case .uint(let teacher) = values[2] else {
            throw EVMError.invalid("settlement", "settlementOf did not answer three amounts")
        }
        run.fee = fee.description
        run.incentive = incentive.description
        run.teacherAmount = teacher.description
    }

    var resultJSON: String {
        let run = details["run"] ?? "0"
        return #"{"lecture_id":"\#(lectureID)","run":"\#(run)"}"#
    }

    func apply(on unit: UnitOfWork, operation: OperationTracker.Pending, chain settings: EVMChainSettings) throws {
        let operationID = operation.id
        let connection = unit.connection
        let id = Int64(lectureID)
        if action == "create" {
            try connection.execute(
                """
                INSERT INTO evm_lectures (chain, lecture_id, teacher, teacher_id, title, kind, target, place, period, curriculum, sessions, \
                min_attendance, run_count, created_at, updated_at) \
                VALUES (\(chain), \(id), \(onChain.teacher.checksummed), \(details["user_id"] ?? ""), \(details["title"] ?? ""), \
                \(details["kind"] ?? ""), \(details["target"] ?? ""), \(details["place"] ?? ""), \(details["period"] ?? ""), \
                \(details["curriculum"] ?? "[]"), \(Int64(onChain.sessions)), \(Int64(onChain.minAttendance)), \(Int64(onChain.runCount)), \
                \(unit.now), \(unit.now)) ON CONFLICT (chain, lecture_id) DO NOTHING
                """
            )
        } else {
            try connection.execute(
                "UPDATE evm_lectures SET run_count = \(Int64(onChain.runCount)), updated_at = \(unit.now) WHERE chain = \(chain) AND lecture_id = \(id)"
            )
        }
        for run in runs {
            try connection.execute(
                """
                INSERT INTO evm_lecture_runs (chain, lecture_id, run, state, price, capacity, sold, total, end_time, evaluations, score_sum, \
                average, fee, incentive, teacher_amount, updated_at) \
                VALUES (\(chain), \(id), \(Int64(run.run)), \(run.state), \(run.price), \(Int64(run.capacity)), \(Int64(run.sold)), \
                \(run.total), \(Int64(run.endTime)), \(Int64(run.evaluations)), \(Int64(run.scoreSum)), \(Int64(run.average)), \(run.fee), \
                \(run.incentive), \(run.teacherAmount), \(unit.now)) \
                ON CONFLICT (chain, lecture_id, run) DO UPDATE SET state = excluded.state, sold = excluded.sold, total = excluded.total, \
                evaluations = excluded.evaluations, score_sum = excluded.score_sum, average = excluded.average, fee = excluded.fee, \
                incentive = excluded.incentive, teacher_amount = excluded.teacher_amount, updated_at = excluded.updated_at
                """
            )
        }
        if let seat {
            // The hub user is known when the student bought the seat; later writes keep it.
            let user = action == "purchase" ? details["user_id"] : nil
            try connection.execute(
                """
                INSERT INTO evm_lecture_seats (chain, lecture_id, run, student, user_id, paid, attendance, evaluated, refunded, review, updated_at) \
                VALUES (\(chain), \(id), \(Int64(seat.run)), \(seat.student), \(user), \(seat.paid), \(Int64(seat.attendance)), \
                \(seat.evaluated ? 1 : 0), \(seat.refunded ? 1 : 0), \(details["review"]), \(unit.now)) \
                ON CONFLICT (chain, lecture_id, run, student) DO UPDATE SET user_id = COALESCE(evm_lecture_seats.user_id, excluded.user_id), \
                paid = excluded.paid, attendance = excluded.attendance, evaluated = excluded.evaluated, refunded = excluded.refunded, \
                review = COALESCE(excluded.review, evm_lecture_seats.review), updated_at = excluded.updated_at
                """
            )
        }
        if ContractLedger.mirrors(settings) {
            var ledger = ContractLedger(unit: unit, chain: settings, txHash: operation.txHash, kind: operation.kind)
            try mirror(in: &ledger)
        }
        guard let type = EVMEvents.lectureEvent(action: action) else { return }
        let run = details["run"].flatMap { UInt64($0) }
        try unit.emit(
            type,
            subject: "\(chain):\(lectureID)",
            data: EVMEvents.LectureData(
                chain: chain,
                lectureId: lectureID,
                operationId: operationID,
                run: runs.first { $0.run == run },
                seat: seat
            )
        )
    }

    /// The hold of a seat's payment.
    func hold(run: UInt64, student: String) -> String {
        "lecture:\(chain):\(contract.checksummed):\(lectureID):\(run):\(student)"
    }

    /// The ledger's side on an external chain (``ContractLedger``): a seat's price held from its
    /// student for the contract; at settlement the holds posted and the split credited to the
    /// teacher and the platform; a refund releases the hold back to the student's wallet.
    private func mirror(in ledger: inout ContractLedger) throws {
        switch action {
        case "purchase":
            guard let seat, let paid = try? UInt256(decimal: seat.paid) else { return }
            try ledger.lock(paid, from: try EthereumAddress(seat.student), in: contract, hold: hold(run: seat.run, student: seat.student))
        case "refund":
            guard let seat else { return }
            try ledger.release(hold: hold(run: seat.run, student: seat.student), to: try EthereumAddress(seat.student), at: contract)
        case "settle":
            guard let index = details["run"].flatMap({ UInt64($0) }), let run = runs.first(where: { $0.run == index }),
                let total = ContractLedger.ledgerAmount(try UInt256(decimal: run.total)),
                let fee = run.fee.flatMap({ try? UInt256(decimal: $0) }), let incentive = run.incentive.flatMap({ try? UInt256(decimal: $0) }),
                let teacherAmount = run.teacherAmount.flatMap({ try? UInt256(decimal: $0) })
            else { return }
            let students = try ledger.unit.connection.query(
                "SELECT student FROM evm_lecture_seats WHERE chain = \(chain) AND lecture_id = \(Int64(lectureID)) AND run = \(Int64(index))"
            ).map { try $0.text("student") }
            let holds = students.map { hold(run: index, student: $0) }
            // Seats bought outside the hub were never held here: their money enters the contract now.
            let held = try ledger.held(holds)
            if total > held { try ledger.enterContract(total - held, contract) }
            for hold in holds { try ledger.capture(hold: hold) }
            try ledger.pay(teacherAmount, from: contract, to: onChain.teacher)
            if let platform { try ledger.pay(fee.subtractingReportingOverflow(incentive).partialValue, from: contract, to: platform) }
        default:
            break
        }
    }
}
