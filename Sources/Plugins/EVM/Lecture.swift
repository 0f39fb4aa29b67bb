import ChainKit
import Foundation
import HubKernel

/// A paid course on the chain's `Lectures` contract (contracts/evm/README.md): the teacher's
/// off-chain details kept by the rail, the rules and runs as the contract says.
struct Lecture: Sendable, Hashable, Encodable {
    var chain: String
    var lectureId: UInt64
    /// The teacher's address on the chain, and their hub user.
    var teacher: String
    var teacherId: String
    var title: String
    var kind: String
    var target: String
    var place: String
    var period: String
    var curriculum: [String]
    /// Class meetings of every run, and how many a student attends before evaluating.
    var sessions: UInt64
    var minAttendance: UInt64
    var runCount: UInt64
    var createdAt: String
    var updatedAt: String

    static let columns: SQL = """
        chain, lecture_id, teacher, teacher_id, title, kind, target, place, period, curriculum, sessions, min_attendance, \
        run_count, created_at, updated_at
        """

    init(_ row: SQLRow) throws {
        chain = try row.text("chain")
        lectureId = UInt64(try row.int("lecture_id"))
        teacher = try row.text("teacher")
        teacherId = try row.text("teacher_id")
        title = try row.text("title")
        kind = try row.text("kind")
        target = try row.text("target")
        place = try row.text("place")
        period = try row.text("period")
        curriculum = (try? JSONDecoder().decode([String].self, from: Data(try row.text("curriculum").utf8))) ?? []
        sessions = UInt64(try row.int("sessions"))
        minAttendance = UInt64(try row.int("min_attendance"))
        runCount = UInt64(try row.int("run_count"))
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
        updatedAt = try row.decode("updated_at", as: LedgerTimestamp.self).description
    }

    /// The contract's `lecture(id)`: teacher, sessions, minimum attendance, runs opened.
    struct OnChain: Sendable {
        var teacher: EthereumAddress
        var sessions: UInt64
        var minAttendance: UInt64
        var runCount: UInt64

        init(lectureID: UInt64, chain: String, returned data: [UInt8]) throws {
            let values = try ABI.decode([.address, .uint(bits: 256), .uint(bits: 256), .uint(bits: 256)], data)
            guard values.count == 4, case .address(let teacher) = values[0], !teacher.bytes.allSatisfy({ $0 == 0 }),
                let sessions = values[1].uint64, let minimum = values[2].uint64, let runs = values[3].uint64
            else { throw LectureRun.notFound(lectureID, chain: chain) }
            self.teacher = teacher
            self.sessions = sessions
            self.minAttendance = minimum
            self.runCount = runs
        }
    }
}

/// One run of a lecture (a first run and up to four re-runs), as the contract's `run(id, index)`
/// says, with the settlement's split once settled.
struct LectureRun: Sendable, Hashable, Encodable {
    static let states = ["none", "open", "settled", "cancelled"]

    var run: UInt64
    var state: String
    /// Wei per seat, and the wei paid for the run's seats (decimal text).
    var price: String
    var capacity: UInt64
    var sold: UInt64
    var seatsLeft: UInt64
    var total: String
    var endTime: UInt64
    var evaluations: UInt64
    /// The sum of every score of every evaluation, and the run's average (0…100, 0 with none).
    var scoreSum: UInt64
    var average: UInt64
    var fee: String?
    var incentive: String?
    var teacherAmount: String?

    static let columns: SQL = """
        run, state, price, capacity, sold, total, end_time, evaluations, score_sum, average, fee, incentive, teacher_amount
        """

    init(_ row: SQLRow) throws {
        run = UInt64(try row.int("run"))
        state = try row.text("state")
        price = try row.text("price")
        capacity = UInt64(try row.int("capacity"))
        sold = UInt64(try row.int("sold"))
        seatsLeft = capacity > sold ? capacity - sold : 0
        total = try row.text("total")
        endTime = UInt64(try row.int("end_time"))
        evaluations = UInt64(try row.int("evaluations"))
        scoreSum = UInt64(try row.int("score_sum"))
        average = UInt64(try row.int("average"))
        fee = try row.optionalText("fee")
        incentive = try row.optionalText("incentive")
        teacherAmount = try row.optionalText("teacher_amount")
    }

    /// Decodes `run(id, index)`: state, price, capacity, sold, total, end, evaluations, five sums.
    init(lectureID: UInt64, run: UInt64, chain: String, returned data: [UInt8]) throws {
        let values = try ABI.decode([.uint(bits: 8)] + Array(repeating: ABIType.uint(bits: 256), count: 11), data)
        guard values.count == 12, let code = values[0].uint64, code > 0, code < UInt64(Self.states.count),
            case .uint(let price) = values[1], let capacity = values[2].uint64, let sold = values[3].uint64,
            case .uint(let total) = values[4], let end = values[5].uint64, let evaluations = values[6].uint64
        else { throw Self.notFound(lectureID, chain: chain) }
        var sum: UInt64 = 0
        for value in values[7...] {
            // Each sum is at most 100 per evaluation, so this fits long before it could overflow.
            guard let part = value.uint64 else { throw Self.notFound(lectureID, chain: chain) }
            sum += part
        }
        self.run = run
        self.state = Self.states[Int(code)]
        self.price = price.description
        self.capacity = capacity
        self.sold = sold
        self.seatsLeft = capacity > sold ? capacity - sold : 0
        self.total = total.description
        self.endTime = end
        self.evaluations = evaluations
        self.scoreSum = sum
        self.average = evaluations == 0 ? 0 : sum / (evaluations * 5)
    }

    static func notFound(_ id: UInt64, chain: String) -> EVMError {
        EVMError(kind: .notFound, errorCode: "lecture_not_found", message: "No lecture \(id) on '\(chain)'.")
    }
}

/// A student's seat in a run, as the contract's `seat(id, run, student)` says, with the written
/// review they left (kept off-chain).
struct LectureSeat: Sendable, Hashable, Encodable {
    var run: UInt64
    var student: String
    var userId: String?
    var paid: String
    var attendance: UInt64
    var evaluated: Bool
    var refunded: Bool
    var review: String?

    static let columns: SQL = "run, student, user_id, paid, attendance, evaluated, refunded, review"

    init(_ row: SQLRow) throws {
        run = UInt64(try row.int("run"))
        student = try row.text("student")
        userId = try row.optionalText("user_id")
        paid = try row.text("paid")
        attendance = UInt64(try row.int("attendance"))
        evaluated = try row.int("evaluated") != 0
        refunded = try row.int("refunded") != 0
        review = try row.optionalText("review")
    }

    /// Decodes `seat(id, run, student)`: paid, attendance, the attended-sessions bitmap, evaluated, refunded.
    init(run: UInt64, student: EthereumAddress, returned data: [UInt8]) throws {
        let values = try ABI.decode([.uint(bits: 256), .uint(bits: 256), .uint(bits: 256), .bool, .bool], data)
        guard values.count == 5, case .uint(let paid) = values[0], let attendance = values[1].uint64,
            case .bool(let evaluated) = values[3], case .bool(let refunded) = values[4]
        else { throw EVMError.invalid("seat", "the contract's seat() answer does not decode") }
        self.run = run
        self.student = student.checksummed
        self.paid = paid.description
        self.attendance = attendance
        self.evaluated = evaluated
        self.refunded = refunded
    }
}

extension ABIValue {
    /// A `uint` word that fits 64 bits, else `nil`.
    var uint64: UInt64? {
        guard case .uint(let value) = self, value.high == 0, value.low <= UInt128(UInt64.max) else { return nil }
        return UInt64(value.low)
    }
}
