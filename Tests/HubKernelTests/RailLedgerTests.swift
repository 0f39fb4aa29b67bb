import HubTestSupport
import Testing

@testable import HubKernel

/// What a rail is handed of the ledger: reads and set-up in its own name, nothing that writes
/// around its units of work.
@Suite("Rail ledger", .timeLimit(.minutes(3)))
struct RailLedgerTests {
    @Test("a rail creates assets in its own name only, and reads what the kernel wrote", arguments: TestBackend.enabled)
    func ownName(backend: TestBackend) async throws {
        try await withLedger(on: backend) { ledger in
            let rail = RailLedger(ledger, railID: "tipjar")
            let foreign = try await rail.createAsset(NewAsset(code: AssetCode("TIPX")!, scale: 2, name: "x", rail: "other"))
            guard case .failed(let error) = foreign else {
                Issue.record("an asset in another rail's name was created: \(foreign)")
                return
            }
            #expect(error.code == .ownedByRail)
            #expect(try await ledger.asset(AssetCode("TIPX")!) == nil)
            let own = try await rail.createAsset(NewAsset(code: AssetCode("TIPS")!, scale: 2, name: "tips", rail: "tipjar"))
            #expect(own.value?.rail == "tipjar")
            #expect(try await rail.asset(AssetCode("TIPS")!)?.name == "tips")
            #expect(try await rail.account(own.value!.issuanceAccountID) != nil)
        }
    }
}
