import Foundation
import Testing

@testable import HubKernel

@Suite("Webhook filters and retry policy")
struct WebhookPolicyTests {
    @Test(
        "filters match exact types and dotted prefixes",
        arguments: [
            ([String](), "anything.at.all", true),
            (["ledger.transfer.posted"], "ledger.transfer.posted", true),
            (["ledger.transfer.posted"], "ledger.transfer.posted.extra", false),
            (["ledger.transfer.*"], "ledger.transfer.posted", true),
            (["ledger.transfer.*"], "ledger.transfer.pending.voided", true),
            (["ledger.transfer.*"], "ledger.transfer", false),
            (["ledger.transfer.*"], "ledger.transfers.posted", false),
            (["ledger.*", "ble.session.paid"], "ble.session.paid", true),
            (["ledger.*", "ble.session.paid"], "ble.session.opened", false),
        ]
    )
    func filterMatching(patterns: [String], type: String, matches: Bool) throws {
        #expect(try WebhookEventFilter(validating: patterns).matches(type) == matches)
    }

    @Test("the retry policy follows the schedule, then gives up")
    func retryPolicy() {
        let start = LedgerTimestamp(nanoseconds: 1_000_000_000_000)
        let policy = WebhookRetryPolicy(schedule: [.seconds(5), .seconds(30), .milliseconds(1500)], jitter: 0)
        #expect(
            policy.afterFailure(failedAttempts: 1, now: start, random: 0.9)
                == .retry(at: LedgerTimestamp(nanoseconds: start.nanoseconds + 5_000_000_000))
        )
        #expect(
            policy.afterFailure(failedAttempts: 2, now: start, random: 0.9)
                == .retry(at: LedgerTimestamp(nanoseconds: start.nanoseconds + 30_000_000_000))
        )
        #expect(
            policy.afterFailure(failedAttempts: 3, now: start, random: 0.9)
                == .retry(at: LedgerTimestamp(nanoseconds: start.nanoseconds + 1_500_000_000))
        )
        #expect(policy.afterFailure(failedAttempts: 4, now: start, random: 0.9) == .giveUp)
        #expect(WebhookRetryPolicy(schedule: [], jitter: 0).afterFailure(failedAttempts: 1, now: start, random: 0) == .giveUp)

        let jittered = WebhookRetryPolicy(schedule: [.seconds(10)], jitter: 0.1)
        #expect(
            jittered.afterFailure(failedAttempts: 1, now: start, random: 0.5)
                == .retry(at: LedgerTimestamp(nanoseconds: start.nanoseconds + 10_500_000_000))
        )
    }

    @Test("the default schedule keeps retrying for more than a day")
    func defaultScheduleSpansADay() {
        let configuration = WebhookConfiguration()
        #expect(configuration.totalRetryWindow > .seconds(24 * 3600))
        #expect(configuration.retrySchedule == configuration.retrySchedule.sorted())
    }
}
