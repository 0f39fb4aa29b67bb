import HTTPTypes
import Testing

@testable import HubKernel

/// Domain errors map to problems by kind, in one place, with the status's standard title.
@Suite("Errors by kind")
struct HubErrorTests {
    @Test("each kind has its status and title; the code and field pass through")
    func problems() {
        let refused = ProblemMiddleware.problem(for: TransferError(.exceedsCredits, "insufficient funds"))
        #expect(refused.status.code == 422 && refused.status.reasonPhrase == "Unprocessable Content")
        #expect(refused.code == "exceeds_credits")
        let missing = ProblemMiddleware.problem(for: WebhookError(.notFound, "no endpoint"))
        #expect(missing.status.code == 404 && missing.status.reasonPhrase == "Not Found")
        let stopping = ProblemMiddleware.problem(for: LedgerError.writerNotRunning)
        #expect(stopping.status.code == 503 && !stopping.status.reasonPhrase.isEmpty)
        #expect(stopping.headers[.retryAfter] == "1")
        for kind in HubErrorKind.allCases {
            #expect(!HTTPResponse.Status.standard(kind.httpStatus).reasonPhrase.isEmpty, "\(kind)")
        }
        #expect(HubErrorKind.invalidField.jsonRPCCode == -32602)
        // An upload's size and type (an image) have HTTP's own statuses.
        #expect(HubErrorKind.tooLarge.httpStatus == 413 && HubErrorKind.unsupportedType.httpStatus == 415)
        #expect(HTTPResponse.Status.standard(413).reasonPhrase == "Content Too Large")
    }

    /// A thing that is over for good (an expired session) is 410, not 404: a client stops retrying.
    @Test("gone is 410 Gone over HTTP and resource-not-found over JSON-RPC")
    func gone() {
        struct Lapsed: HubError {
            var kind: HubErrorKind { .gone }
            var errorCode: String { "lock_expired" }
            var message: String { "The lock expired." }
        }
        let problem = ProblemMiddleware.problem(for: Lapsed())
        #expect(problem.status.code == 410 && problem.status.reasonPhrase == "Gone")
        #expect(problem.code == "lock_expired" && problem.detail == "The lock expired.")
        #expect(HubErrorKind.gone.jsonRPCCode == HubErrorKind.notFound.jsonRPCCode)
    }

    @Test("Problem(error) is the middleware's problem for that error")
    func problemFromError() {
        let error = TransferError(.exceedsCredits, "insufficient funds")
        #expect(Problem(error).reply == ProblemMiddleware.problem(for: error).reply)
    }
}
