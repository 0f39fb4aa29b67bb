import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/evm/lectures…`: paid courses (create, list, show), the actions on a lecture
/// (purchase, attendance, evaluate, settle, cancel, refund, rerun) and a teacher's earnings. Every
/// write answers 202 with its operation.
struct LecturesController: Sendable {
    let lectures: LecturesService

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("lectures", use: create)
        group.get("lectures", use: list)
        group.get("lectures/earnings", use: earnings)
        group.post("lectures/earnings", use: withdraw)
        group.get("lectures/{chain}/{id}", use: show)
        group.post("lectures/{chain}/{id}/{action}", use: act)
    }

    struct CreateRequest: Decodable {
        var chain: String?
        var title: String
        var kind: String
        var target: String?
        var place: String?
        var period: String?
        var curriculum: [String]?
        /// Decimal text of the chain's smallest unit (up to 2^256 − 1).
        var price: String
        var capacity: UInt64
        var sessions: UInt64
        var minAttendance: UInt64
        var endTime: UInt64
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateRequest.self, context: context)
        let operation = try await lectures.create(
            LecturesService.NewLecture(
                chain: body.chain,
                title: body.title,
                kind: body.kind,
                target: body.target ?? "",
                place: body.place ?? "",
                period: body.period ?? "",
                curriculum: body.curriculum ?? [],
                price: try ListingsController.amount(body.price, field: "price"),
                capacity: body.capacity,
                sessions: body.sessions,
                minAttendance: body.minAttendance,
                endTime: body.endTime
            ),
            by: principal.userID
        )
        return try context.answer(operation)
    }

    /// Every lecture, or with `role=teacher` those the caller teaches, `role=student` those they
    /// hold a seat in.
    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let role = try request.uri.queryParameters["role"].map { text in
            guard let role = LecturesService.Role(rawValue: String(text)) else {
                throw EVMError.invalid("role", "role is teacher or student.")
            }
            return role
        }
        let found = try await lectures.lectures(role: role, user: principal.userID, limit: try request.pageLimit())
        return try context.json(["data": found])
    }

    struct LectureRepresentation: Encodable {
        var lecture: Lecture
        var runs: [LectureRun]
        /// The current run's seats left and average (0…100, 0 before any evaluation); the average
        /// over every run, as the contract's `averagePoint` computes it.
        var seatsLeft: UInt64
        var average: UInt64
        var averagePoint: UInt64
        /// The caller's seats, each saying whether they may evaluate now.
        var mySeats: [MySeat]
        /// Every seat, for the teacher and admins only.
        var students: [LectureSeat]?
    }

    struct MySeat: Encodable {
        var seat: LectureSeat
        var mayEvaluate: Bool
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        guard let chain = context.parameters.get("chain"), let id = context.storedID("id"),
            let (lecture, runs) = try await lectures.lecture(chain: chain, id: id)
        else { throw EVMError(kind: .notFound, errorCode: "lecture_not_found", message: "No such lecture.") }
        let current = runs.last
        let evaluations = runs.reduce(0) { $0 + $1.evaluations }
        let mine = try await lectures.seats(chain: chain, id: id, user: principal.userID).map { seat in
            let run = runs.first { $0.run == seat.run }
            let may = run?.state == "open" && !seat.evaluated && !seat.refunded && seat.attendance >= lecture.minAttendance
            return MySeat(seat: seat, mayEvaluate: may)
        }
        let teaches = lecture.teacherId == principal.userID.description || principal.isAdmin
        return try context.json(
            LectureRepresentation(
                lecture: lecture,
                runs: runs,
                seatsLeft: current?.seatsLeft ?? 0,
                average: current?.average ?? 0,
                averagePoint: evaluations == 0 ? 0 : runs.reduce(0) { $0 + $1.scoreSum } / (evaluations * 5),
                mySeats: mine,
                students: teaches ? try await lectures.seats(chain: chain, id: id, user: nil) : nil
            )
        )
    }

    struct ActionRequest: Decodable {
        var session: UInt64?
        var student: String?
        var scores: [UInt64]?
        var review: String?
        var run: UInt64?
        var price: String?
        var capacity: UInt64?
        var endTime: UInt64?
    }

    @Sendable func act(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard let chain = context.parameters.get("chain"), let id = context.storedID("id") else {
            throw EVMError(kind: .notFound, errorCode: "lecture_not_found", message: "No such lecture.")
        }
        guard let action = context.parameters.get("action").flatMap(LecturesService.Action.init(rawValue:)) else {
            let known = LecturesService.Action.allCases.map(\.rawValue).joined(separator: ", ")
            throw EVMError(kind: .notFound, errorCode: "unknown_action", message: "A lecture's actions are \(known).")
        }
        var request = request
        let body = try await request.decodeJSON(as: ActionRequest.self, context: context)
        let operation = try await lectures.act(
            action,
            chain: chain,
            lectureID: id,
            input: LecturesService.ActionInput(
                price: try body.price.map { try ListingsController.amount($0, field: "price") },
                capacity: body.capacity,
                endTime: body.endTime,
                session: body.session,
                student: body.student,
                scores: body.scores,
                review: body.review,
                run: body.run
            ),
            by: principal
        )
        return try context.answer(operation)
    }

    @Sendable func earnings(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let found = try await lectures.earnings(chain: request.uri.queryParameters["chain"].map(String.init), user: principal.userID)
        var answer = ["chain": found.chain, "pending": found.pending, "settled": found.settled]
        answer["address"] = found.address
        return try context.json(answer)
    }

    struct WithdrawRequest: Decodable {
        var chain: String?
    }

    @Sendable func withdraw(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: WithdrawRequest.self, context: context)
        let operation = try await lectures.withdraw(chain: body.chain, by: principal.userID)
        return try context.answer(operation)
    }
}
