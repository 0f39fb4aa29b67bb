import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue #12 item 15: the hub-wide lists the console shows each role.
@Suite("ledger API: hub-wide lists", .timeLimit(.minutes(4)))
struct LedgerBrowseAPITests {
    static func get(_ client: any TestClientProtocol, _ uri: String, as caller: HTTPFields) async throws -> (
        status: HTTPResponse.Status, data: [[String: Any]]
    ) {
        let response = try await client.execute(uri: uri, method: .get, headers: caller)
        return (response.status, (try? response.json()["data"] as? [[String: Any]]) ?? [])
    }

    @Test("#15 all accounts (searchable by user) and all transfers, scoped by role", arguments: TestBackend.enabled)
    func hubWideLists(backend: TestBackend) async throws {
        try await withTestHub(on: backend) { hub, client in
            // EVT is org-1's (alice holds 10000 of it); USD is nobody's: only admins see it.
            let (_, aliceWallet, _) = try await LedgerAPITests.setUp(client)
            let usd = try await hub.ledger.makeAsset("USD")
            let carol = try await hub.ledger.wallet(of: testUserID("carol"), asset: usd.code)
            try await hub.ledger.mint(500, of: usd, to: carol)

            let all = try await Self.get(client, "/v1/ledger/accounts?all=true", as: LedgerAPITests.admin)
            #expect(Set(all.data.compactMap { $0["asset"] as? String }) == ["EVT", "USD"])
            let organised = try await Self.get(client, "/v1/ledger/accounts?all=true", as: LedgerAPITests.organiser)
            #expect(Set(organised.data.compactMap { $0["asset"] as? String }) == ["EVT"])
            #expect(organised.data.count == 3)  // issuance, alice's and bob's wallets
            let mine = try await Self.get(client, "/v1/ledger/accounts?all=true", as: LedgerAPITests.alice)
            #expect(mine.data.compactMap { $0["id"] as? String } == [aliceWallet])
            let search = try await Self.get(client, "/v1/ledger/accounts?q=\(uid("alice").prefix(8))", as: LedgerAPITests.admin)
            #expect(search.data.compactMap { $0["id"] as? String } == [aliceWallet])

            let transfers = try await Self.get(client, "/v1/ledger/transfers", as: LedgerAPITests.admin)
            #expect(transfers.status == .ok)
            #expect(transfers.data.count == 2)
            #expect(transfers.data.first?["asset"] as? String == "USD", "newest first")
            let evt = try await Self.get(client, "/v1/ledger/transfers", as: LedgerAPITests.organiser)
            #expect(evt.data.count == 1 && evt.data.first?["asset"] as? String == "EVT")
            let byAsset = try await Self.get(client, "/v1/ledger/transfers?asset=EVT", as: LedgerAPITests.admin)
            #expect(byAsset.data.count == 1)
            let member = try await client.execute(uri: "/v1/ledger/transfers", method: .get, headers: LedgerAPITests.alice)
            #expect(member.status == .unprocessableContent)
            let paged = try await Self.get(client, "/v1/ledger/transfers?limit=1", as: LedgerAPITests.admin)
            #expect(paged.data.count == 1)
        }
    }
}
