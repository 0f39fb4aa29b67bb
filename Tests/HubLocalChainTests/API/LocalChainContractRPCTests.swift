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

/// Contracts through JSON-RPC, as wallets and dapps use it, with a real compiler's ERC-20
/// (tools/localchain/contracts/EventToken.vy, compiled by the pinned vyper 0.4.3): receipts with
/// logs and blooms, eth_call with revert reasons as code 3, eth_estimateGas by search, code and
/// storage, eth_getLogs with address and topic filters and its limits, and CORS.
@Suite("local chain contracts over JSON-RPC", .timeLimit(.minutes(3)))
struct LocalChainContractRPCTests {
    /// The committed artifact's creation code.
    static let tokenBytecode: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/localchain/contracts/EventToken.json")
        let object = try! JSONSerialization.jsonObject(with: try! Data(contentsOf: url)) as! [String: Any]
        return try! Hex.decode(object["bytecode"] as! String)
    }()
    static let transferTopic = Hex.encode(ABI.eventTopic("Transfer(address,address,uint256)"))

    static func topic(_ address: EthereumAddress) -> String { Hex.encode([UInt8](repeating: 0, count: 12) + address.bytes) }

    func send(_ api: LocalChainAPI, _ chainID: UInt64, _ key: [UInt8], nonce: UInt64, to: EthereumAddress?, data: [UInt8], gas: UInt64 = 1_000_000)
        async throws -> String
    {
        let raw = try EthereumTransaction(envelope: .dynamicFee, chainID: chainID, nonce: nonce, gasLimit: gas, to: to, value: .zero, data: data)
            .signed(privateKey: key).raw
        let answer = try await api.call(chainID, "eth_sendRawTransaction", [Hex.encode(raw)])
        return try #require(answer["result"] as? String, "\(answer)")
    }

    /// A `0x` quantity field as a number.
    func quantity(_ value: Any?) -> UInt64? { (value as? String).flatMap(RPCFormat.parseQuantity) }

    func result(_ answer: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        try #require(answer["result"], "\(answer)", sourceLocation: sourceLocation)
    }

    @Test("deploy an ERC-20, transfer, read receipts, logs, code and storage; call, revert and estimate", arguments: TestBackend.enabled)
    func erc20(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_900
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            let supply = UInt256(UInt64(1_000_000))
            let deployHash = try await send(
                api,
                chainID,
                TestKeys.alice,
                nonce: 0,
                to: nil,
                data: Self.tokenBytecode + (try ABI.encode([.uint(bits: 256)], [.uint(supply)]))
            )
            try await api.waitSealed(chainID)

            let deployed = try #require(try result(try await api.call(chainID, "eth_getTransactionReceipt", [deployHash])) as? [String: Any])
            #expect(deployed["status"] as? String == "0x1")
            let tokenText = try #require(deployed["contractAddress"] as? String)
            let token = try EthereumAddress(tokenText)
            #expect(token == ValidatedTransaction.contractAddress(sender: alice, nonce: 0))
            #expect(deployed["to"] is NSNull)
            #expect((deployed["logs"] as? [Any])?.count == 1)
            #expect(deployed["logsBloom"] as? String != Hex.encode([UInt8](repeating: 0, count: 256)))
            #expect(deployed["effectiveGasPrice"] as? String == "0x0")
            let code = try #require(try result(try await api.call(chainID, "eth_getCode", [tokenText, "latest"])) as? String)
            #expect(code.count > 100 && Self.tokenBytecode.count * 2 > code.count)

            // Transfer 250 to bob: a Transfer log with both addresses as topics.
            let transfer = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(bob), .uint(UInt256(UInt64(250)))]
            )
            let transferHash = try await send(api, chainID, TestKeys.alice, nonce: 1, to: token, data: transfer)
            try await api.waitSealed(chainID)
            let receipt = try #require(try result(try await api.call(chainID, "eth_getTransactionReceipt", [transferHash])) as? [String: Any])
            #expect(receipt["status"] as? String == "0x1")
            let logs = try #require(receipt["logs"] as? [[String: Any]])
            #expect(logs.count == 1)
            #expect(logs.first?["topics"] as? [String] == [Self.transferTopic, Self.topic(alice), Self.topic(bob)])
            #expect(logs.first?["address"] as? String == token.checksummed)
            let gasUsed = try #require(quantity(receipt["gasUsed"]))
            #expect(gasUsed > 21_000)
            let cumulative = try #require(quantity(receipt["cumulativeGasUsed"]))
            #expect(cumulative >= gasUsed)
            let block = try #require(
                try result(try await api.call(chainID, "eth_getBlockByNumber", [receipt["blockNumber"]!, false])) as? [String: Any]
            )
            #expect(block["gasLimit"] as? String == "0x1c9c380")
            #expect(RPCFormat.parseQuantity(block["gasUsed"] as? String ?? "") ?? 0 >= gasUsed)
            #expect(block["logsBloom"] as? String != Hex.encode([UInt8](repeating: 0, count: 256)))

            // eth_call reads balances; storage is readable slot by slot.
            let balanceOf = try ABI.calldata("balanceOf(address)", types: [.address], values: [.address(bob)])
            let balance = try #require(
                try result(try await api.call(chainID, "eth_call", [["to": tokenText, "data": Hex.encode(balanceOf)], "latest"])) as? String
            )
            #expect(try UInt256(bigEndian: try Hex.decode(balance)) == UInt256(UInt64(250)))
            let slot = try #require(try result(try await api.call(chainID, "eth_getStorageAt", [tokenText, "0x0", "latest"])) as? String)
            #expect(try Hex.decode(slot).count == 32)

            // A revert: code 3 with the reason in the message and the revert data as data, as geth.
            let overdraft = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(alice), .uint(UInt256(UInt64(251)))]
            )
            let reverted = try #require(
                try await api.call(chainID, "eth_call", [["from": bob.checksummed, "to": tokenText, "data": Hex.encode(overdraft)]])["error"]
                    as? [String: Any]
            )
            #expect(reverted["code"] as? Int == 3)
            #expect(reverted["message"] as? String == "execution reverted: transfer amount exceeds balance")
            let data = try Hex.decode(try #require(reverted["data"] as? String))
            #expect(ABI.revertReason(data) == .error("transfer amount exceeds balance"))
            let estimateRevert = try #require(
                try await api.call(chainID, "eth_estimateGas", [["from": bob.checksummed, "to": tokenText, "data": Hex.encode(overdraft)]])["error"]
                    as? [String: Any]
            )
            #expect(estimateRevert["code"] as? Int == 3)

            // An estimate is the least gas that succeeds: with it the call works, with one less it does not.
            let payBack = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(alice), .uint(UInt256(UInt64(50)))]
            )
            let call: [String: Any] = ["from": bob.checksummed, "to": tokenText, "data": Hex.encode(payBack)]
            let estimate = try #require(quantity(try result(try await api.call(chainID, "eth_estimateGas", [call]))))
            #expect(estimate > 21_000)
            var exact = call
            exact["gas"] = RPCFormat.quantity(estimate)
            #expect(try await api.call(chainID, "eth_call", [exact])["result"] != nil)
            var short = call
            short["gas"] = RPCFormat.quantity(estimate - 1)
            #expect(try await api.call(chainID, "eth_call", [short])["error"] != nil)
            let payBackHash = try await send(api, chainID, TestKeys.bob, nonce: 0, to: token, data: payBack, gas: estimate)
            try await api.waitSealed(chainID)
            let paid = try #require(try result(try await api.call(chainID, "eth_getTransactionReceipt", [payBackHash])) as? [String: Any])
            #expect(paid["status"] as? String == "0x1")
            // Calls change nothing.
            #expect(try await api.account(chainID, bob)?.nonce == 1)

            // eth_getLogs: by address, by topics with OR-lists and wildcards, by range.
            func findLogs(_ filter: [String: Any]) async throws -> [[String: Any]] {
                let answer = try await api.call(chainID, "eth_getLogs", [filter])
                return try #require(answer["result"] as? [[String: Any]], "\(answer)")
            }
            #expect(try await findLogs(["fromBlock": "earliest", "address": tokenText]).count == 3)
            #expect(try await findLogs(["fromBlock": "0x0", "topics": [Self.transferTopic, NSNull(), Self.topic(bob)]]).count == 1)
            #expect(try await findLogs(["fromBlock": "0x0", "topics": [NSNull(), [Self.topic(alice), Self.topic(bob)]]]).count == 2)
            #expect(try await findLogs(["fromBlock": "0x0", "address": [alice.checksummed]]).isEmpty)
            #expect(try await findLogs(["fromBlock": receipt["blockNumber"]!, "toBlock": receipt["blockNumber"]!]).count == 1)
            #expect(try await findLogs(["blockHash": receipt["blockHash"]!]).count == 1)
            #expect(try await findLogs(["fromBlock": "0xffffff"]).isEmpty)  // after the head: nothing yet
            let badRange = try #require(
                try await api.call(chainID, "eth_getLogs", [["fromBlock": "0x5", "toBlock": "0x1"]])["error"] as? [String: Any]
            )
            #expect(badRange["code"] as? Int == -32602)
            let badTopic = try #require(try await api.call(chainID, "eth_getLogs", [["topics": ["0x12"]]])["error"] as? [String: Any])
            #expect(badTopic["code"] as? Int == -32602)

            // eth_getProof: the account as the state root commits to it, its proof rooted there.
            let proof = try #require(
                try result(try await api.call(chainID, "eth_getProof", [tokenText, ["0x0", "0x1"], "latest"])) as? [String: Any]
            )
            let head = try #require(try result(try await api.call(chainID, "eth_getBlockByNumber", ["latest", false])) as? [String: Any])
            let accountProof = try #require(proof["accountProof"] as? [String])
            #expect(Hex.encode(Keccak256.hash(try Hex.decode(try #require(accountProof.first)))) == head["stateRoot"] as? String)
            #expect(proof["nonce"] as? String == "0x1")
            #expect(proof["codeHash"] as? String == Hex.encode(Keccak256.hash(try Hex.decode(code))))
            #expect((proof["storageProof"] as? [[String: Any]])?.count == 2)
            let badKey = try #require(try await api.call(chainID, "eth_getProof", [tokenText, ["0xzz"], "latest"])["error"] as? [String: Any])
            #expect(badKey["code"] as? Int == -32602)

            let report = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }

    @Test("filters: a log filter and a block filter report what was sealed since the last poll", arguments: TestBackend.enabled)
    func filters(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { _, api in
            let chainID: UInt64 = 4_902
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let storer = ValidatedTransaction.contractAddress(sender: alice, nonce: 0)
            _ = try await send(
                api,
                chainID,
                TestKeys.alice,
                nonce: 0,
                to: nil,
                data: ContractExecutionTests.initcode(ContractExecutionTests.storerRuntime)
            )
            try await api.waitSealed(chainID)

            let logFilter = try #require(try result(try await api.call(chainID, "eth_newFilter", [["address": storer.checksummed]])) as? String)
            let blockFilter = try #require(try result(try await api.call(chainID, "eth_newBlockFilter")) as? String)
            let other = try #require(try result(try await api.call(chainID, "eth_newFilter", [["address": alice.checksummed]])) as? String)
            #expect(try result(try await api.call(chainID, "eth_getFilterChanges", [logFilter])) as? [Any] != nil)
            _ = try await send(api, chainID, TestKeys.alice, nonce: 1, to: storer, data: U256(5).bigEndianBytes)
            try await api.waitSealed(chainID)

            let changes = try #require(try result(try await api.call(chainID, "eth_getFilterChanges", [logFilter])) as? [[String: Any]])
            #expect(changes.count == 1)
            #expect(changes.first?["address"] as? String == storer.checksummed)
            #expect((try result(try await api.call(chainID, "eth_getFilterChanges", [logFilter])) as? [Any])?.isEmpty == true)
            #expect((try result(try await api.call(chainID, "eth_getFilterChanges", [other])) as? [Any])?.isEmpty == true)
            let blocks = try #require(try result(try await api.call(chainID, "eth_getFilterChanges", [blockFilter])) as? [String])
            #expect(blocks.count == 1)
            // "latest" resolves when asked: the head, which holds the log.
            #expect((try result(try await api.call(chainID, "eth_getFilterLogs", [logFilter])) as? [Any])?.count == 1)

            #expect(try result(try await api.call(chainID, "eth_uninstallFilter", [logFilter])) as? Bool == true)
            #expect(try result(try await api.call(chainID, "eth_uninstallFilter", [logFilter])) as? Bool == false)
            let gone = try #require(try await api.call(chainID, "eth_getFilterChanges", [logFilter])["error"] as? [String: Any])
            #expect(gone["message"] as? String == "filter not found")
            let malformed = try #require(try await api.call(chainID, "eth_newFilter", [["topics": [["0x01"]]]])["error"] as? [String: Any])
            #expect(malformed["code"] as? Int == -32602)
            // Another chain does not see this chain's filters.
            #expect(try await api.createChain(4_903).status == .created)
            #expect(try await api.call(4_903, "eth_getFilterChanges", [blockFilter])["error"] != nil)
        }
    }

    @Test("CORS: a preflight is answered and answers carry the allowed origin", arguments: TestBackend.enabled)
    func cors(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { _, api in
            let chainID: UInt64 = 4_901
            #expect(try await api.createChain(chainID).status == .created)
            let preflight = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/rpc",
                method: .options,
                headers: [.origin: "https://dapp.example", .accessControlRequestMethod: "POST"]
            )
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "*")
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
            var headers: HTTPFields = [.origin: "https://dapp.example"]
            headers.append(contentsOf: jsonHeaders)
            let answer = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/rpc",
                method: .post,
                headers: headers,
                body: jsonBody(["jsonrpc": "2.0", "id": 1, "method": "eth_accounts", "params": []])
            )
            #expect(answer.headers[.accessControlAllowOrigin] == "*")
            #expect(try answer.json()["result"] as? [Any] != nil)
            let unknown = try await api.call(chainID, "eth_noSuchMethod")
            #expect((unknown["error"] as? [String: Any])?["code"] as? Int == -32601)
        }
    }

    @Test("allowed origins are configured per chain, with a default")
    func corsConfiguration() throws {
        let cors = try RPCCORS(config: ["*": ["https://a.example"], "7": ["*"], "8": []])
        #expect(cors.allowedOrigin("https://a.example", chainID: 1) == "https://a.example")
        #expect(cors.allowedOrigin("https://b.example", chainID: 1) == nil)
        #expect(cors.allowedOrigin("https://b.example", chainID: 7) == "*")
        #expect(cors.allowedOrigin("https://a.example", chainID: 8) == nil)
        #expect(throws: PluginConfigError.self) { try RPCCORS(config: ["*": ["https://a.example/path"]]) }
        #expect(throws: PluginConfigError.self) { try RPCCORS(config: ["x": ["*"]]) }
    }
}
