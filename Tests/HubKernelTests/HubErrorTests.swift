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
    }
}
