import ChainKit
import EVMKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

@Suite("local chain explorer", .timeLimit(.minutes(3)))
struct LocalChainExplorerTests {
    static func get(_ api: LocalChainAPI, _ path: String) async throws -> TestResponse {
        try await api.client.execute(uri: "/v1/rails/localchain/chains/\(path)", method: .get)
    }

    /// Every page of a list, following `next_cursor`.
    static func all(_ api: LocalChainAPI, _ path: String, key: String) async throws -> [String] {
        var seen: [String] = []
        var uri = path + (path.contains("?") ? "&" : "?") + "limit=2"
        for _ in 0..<50 {
            let page = try (try await get(api, uri)).json()
            seen += (page["data"] as? [[String: Any]] ?? []).compactMap { ($0[key] as? String) ?? ($0[key] as? Int).map(String.init) }
            guard let next = page["next_cursor"] as? String else { return seen }
            uri = path + (path.contains("?") ? "&" : "?") + "limit=2&cursor=\(next)"
        }
        Issue.record("more than 50 pages")
        return seen
    }

    @Test("blocks, transactions, accounts with history and search, paginated; proximity", arguments: TestBackend.enabled)
    func explore(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 6_100
            let created = try await api.createChain(chainID, extra: ["host": ["latitude": "52.3702", "longitude": "4.8952", "radius_meters": 500]])
            #expect(created.status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "100").status == .accepted)
            try await api.waitSealed(chainID)
            var hashes: [String] = []
            for nonce in 0..<3 {
                let tx = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: UInt64(nonce), to: bob, value: 10)
                #expect(try await api.send(chainID, raw: tx.raw).status == .accepted)
                hashes.append(Hex.encode(tx.hash))
                try await api.waitSealed(chainID)
            }
            let head = try await api.head(chainID)
            #expect(head >= 2)

            let blockNumbers = try await Self.all(api, "\(chainID)/blocks", key: "number")
            #expect(blockNumbers == (0...head).reversed().map(String.init))
            let latest = try (try await Self.get(api, "\(chainID)/blocks/latest")).json()
            #expect(latest["number"] as? Int == Int(head))
            let latestHash = try #require(latest["hash"] as? String)
            #expect(try (try await Self.get(api, "\(chainID)/blocks/\(latestHash)")).json()["number"] as? Int == Int(head))
            let genesis = try (try await Self.get(api, "\(chainID)/blocks/0")).json()
            #expect(genesis["parent_hash"] as? String == Hex.encode([UInt8](repeating: 0, count: 32)))
            #expect(try await Self.get(api, "\(chainID)/blocks/9999").status == .notFound)
            #expect(try await Self.get(api, "\(chainID)/blocks/nonsense").status == .notFound)

            let all = try await Self.all(api, "\(chainID)/transactions", key: "hash")
            #expect(all.count == 4)
            #expect(Array(all.prefix(3)) == hashes.reversed())
            let one = try (try await Self.get(api, "\(chainID)/transactions/\(hashes[0])")).json()
            #expect(one["status"] as? String == "success")
            #expect(one["from"] as? String == alice.checksummed)
            #expect(one["value"] as? String == "10")

            let accounts = try await Self.all(api, "\(chainID)/accounts", key: "address")
            #expect(
                Set(accounts) == Set([alice.checksummed, bob.checksummed, try EthereumAddress(created.json()["validator"] as! String).checksummed])
            )
            let bobAccount = try (try await Self.get(api, "\(chainID)/accounts/\(bob.checksummed)")).json()
            #expect(bobAccount["balance"] as? String == "30")
            let empty = try (try await Self.get(api, "\(chainID)/accounts/0x00000000000000000000000000000000000000e1")).json()
            #expect(empty["balance"] as? String == "0")
            let bobHistory = try await Self.all(api, "\(chainID)/accounts/\(bob.checksummed)/transactions", key: "hash")
            #expect(bobHistory == hashes.reversed())
            #expect(try await Self.all(api, "\(chainID)/accounts/\(alice.checksummed)/transactions", key: "hash").count == 4)

            #expect(try (try await Self.get(api, "\(chainID)/search?q=\(hashes[1])")).json()["kind"] as? String == "transaction")
            #expect(try (try await Self.get(api, "\(chainID)/search?q=\(latestHash)")).json()["kind"] as? String == "block")
            #expect(try (try await Self.get(api, "\(chainID)/search?q=1")).json()["kind"] as? String == "block")
            #expect(try (try await Self.get(api, "\(chainID)/search?q=\(bob.description)")).json()["kind"] as? String == "account")
            #expect(try await Self.get(api, "\(chainID)/search?q=0x00").status == .notFound)
            #expect(try await Self.get(api, "\(chainID)/search").status == .unprocessableContent)

            // Amsterdam Centraal is about 1.2 km from Dam square (the host); the Dam itself is within 500 m.
            let near = try (try await Self.get(api, "\(chainID)/proximity?lat=52.3731&lon=4.8926")).json()
            #expect(near["within_radius"] as? Bool == true)
            let far = try (try await Self.get(api, "\(chainID)/proximity?lat=52.3791&lon=4.9003")).json()
            #expect(far["within_radius"] as? Bool == false)
            #expect((1_000...1_200).contains(far["distance_meters"] as? Int ?? 0), "\(far)")
            #expect(try await Self.get(api, "\(chainID)/proximity?lat=91&lon=0").status == .unprocessableContent)
            #expect(try await Self.get(api, "\(chainID)/proximity?lon=0").status == .unprocessableContent)
            #expect(try await Self.get(api, "999/blocks").status == .notFound)
        }
    }

    @Test("a chain without a host location has no proximity", arguments: [TestBackend.sqlite])
    func noHost(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            #expect(try await api.createChain(6_200).status == .created)
            let response = try await Self.get(api, "6200/proximity?lat=1&lon=1")
            #expect(response.status == .notFound)
            #expect(response.object["code"] as? String == "no_host_location")
        }
    }
    /// Runtime code that logs an ERC-20 `Transfer(from, to, 1250)` whatever it is called with.
    static func transferLogger(from: EthereumAddress, to: EthereumAddress) -> [UInt8] {
        let topic = ABI.eventTopic("Transfer(address,address,uint256)")
        return [0x7f] + UInt256(1_250).bigEndianBytes + [0x60, 0x00, 0x52]  // MSTORE the amount at 0
            + [0x73] + to.bytes + [0x73] + from.bytes + [0x7f] + topic  // topics 2, 1, 0
            + [0x60, 0x20, 0x60, 0x00, 0xa3, 0x00]  // LOG3 of 32 bytes at 0; STOP
    }

    @Test("contracts listed with their code size; token calls and events decoded", arguments: TestBackend.enabled)
    func contractsAndDecoding(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 6_300
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "100").status == .accepted)
            try await api.waitSealed(chainID)
            let runtime = Self.transferLogger(from: alice, to: bob)
            let token = ValidatedTransaction.contractAddress(sender: alice, nonce: 0)
            let deploy = try EthereumTransaction(
                envelope: .dynamicFee,
                chainID: chainID,
                nonce: 0,
                gasLimit: 200_000,
                to: nil,
                value: .zero,
                data: ContractExecutionTests.initcode(runtime)
            ).signed(privateKey: TestKeys.alice)
            let calldata = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(bob), .uint(UInt256(1_250))]
            )
            let call = try EthereumTransaction(
                envelope: .dynamicFee,
                chainID: chainID,
                nonce: 1,
                gasLimit: 200_000,
                to: token,
                value: .zero,
                data: calldata
            )
            .signed(privateKey: TestKeys.alice)
            for signed in [deploy, call] { #expect(try await api.send(chainID, raw: signed.raw).status == .accepted) }
            try await api.waitSealed(chainID)

            let contracts = try (try await Self.get(api, "\(chainID)/accounts?kind=contract")).json()["data"] as? [[String: Any]]
            #expect(contracts?.map { $0["address"] as? String } == [token.checksummed])
            #expect(contracts?.first?["code_size"] as? Int == runtime.count)
            let plain = try await Self.all(api, "\(chainID)/accounts?kind=account", key: "address")
            #expect(Set(plain).contains(alice.checksummed) && !plain.contains(token.checksummed))
            let all = try (try await Self.get(api, "\(chainID)/accounts")).json()["data"] as? [[String: Any]] ?? []
            #expect(all.first { $0["address"] as? String == alice.checksummed }?["code_size"] as? Int == 0)
            #expect(try (try await Self.get(api, "\(chainID)/accounts/\(token.checksummed)")).json()["code_size"] as? Int == runtime.count)
            let refused = try await Self.get(api, "\(chainID)/accounts?kind=token")
            #expect(refused.status == .unprocessableContent)
            #expect(refused.object["field"] as? String == "kind")

            // The call, in the list and in the answer for it; its log's event in the answer only.
            let listed = try (try await Self.get(api, "\(chainID)/transactions?limit=1")).json()["data"] as? [[String: Any]]
            let listedCall = try #require(listed?.first?["call"] as? [String: Any])
            #expect(listedCall["name"] as? String == "transfer")
            #expect(listed?.first?["logs"] == nil)
            let one = try (try await Self.get(api, "\(chainID)/transactions/\(Hex.encode(call.hash))")).json()
            let decoded = try #require(one["call"] as? [String: Any])
            #expect(decoded["signature"] as? String == "transfer(address,uint256)")
            #expect(decoded["args"] as? [String: String] == ["to": bob.checksummed, "value": "1250"])
            let logs = try #require(one["logs"] as? [[String: Any]])
            #expect(logs.count == 1)
            #expect(logs.first?["address"] as? String == token.checksummed)
            let event = try #require(logs.first?["event"] as? [String: Any])
            #expect(event["name"] as? String == "Transfer")
            #expect(event["standard"] as? String == "ERC-20")
            #expect(event["args"] as? [String: String] == ["from": alice.checksummed, "to": bob.checksummed, "value": "1250"])
            // A creation's data is initcode, not a call; a plain grant has neither call nor logs.
            let created = try (try await Self.get(api, "\(chainID)/transactions/\(Hex.encode(deploy.hash))")).json()
            #expect(created["call"] == nil)
            #expect((created["logs"] as? [Any])?.isEmpty == true)
        }
    }
}
