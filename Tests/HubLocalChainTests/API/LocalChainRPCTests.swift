import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// The JSON-RPC endpoint as a client library sees it (web3.py drives it live in CI:
/// `scripts/localchain-web3-test.sh`); here the protocol's edges and error codes.
@Suite("local chain JSON-RPC", .timeLimit(.minutes(3)))
struct LocalChainRPCTests {
    @Test("wallet calls: chain id, balances, nonces (pending too), send, transaction, receipt, blocks", arguments: TestBackend.enabled)
    func walletFlow(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 5_100
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.call(chainID, "eth_chainId")["result"] as? String == "0x13ec")
            #expect(try await api.call(chainID, "net_version")["result"] as? String == "5100")
            #expect(try await api.call(chainID, "eth_blockNumber")["result"] as? String == "0x0")
            #expect(try await api.grant(chainID, to: alice, amount: "1000").status == .accepted)
            try await api.waitSealed(chainID)
            #expect(try await api.call(chainID, "eth_getBalance", [alice.checksummed, "latest"])["result"] as? String == "0x3e8")

            let first = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 16)
            let sent = try await api.call(chainID, "eth_sendRawTransaction", [Hex.encode(first.raw)])
            #expect(sent["result"] as? String == Hex.encode(first.hash))
            // While it waits: pending counts it, latest does not; the transaction is known without a block.
            let third = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 2, to: bob, value: 1)
            _ = try await api.call(chainID, "eth_sendRawTransaction", [Hex.encode(third.raw)])
            let pendingTx = try await api.call(chainID, "eth_getTransactionByHash", [Hex.encode(third.hash)])
            #expect((pendingTx["result"] as? [String: Any])?["blockHash"] is NSNull)
            #expect(try await api.call(chainID, "eth_getTransactionReceipt", [Hex.encode(third.hash)])["result"] is NSNull)
            try await eventually("the first transfer to be sealed") {
                (try await api.call(chainID, "eth_getTransactionReceipt", [Hex.encode(first.hash)])["result"] as? [String: Any]) != nil
            }
            #expect(try await api.call(chainID, "eth_getTransactionCount", [alice.checksummed, "latest"])["result"] as? String == "0x1")
            #expect(try await api.call(chainID, "eth_getTransactionCount", [alice.checksummed, "pending"])["result"] as? String == "0x1")

            let receipt = try #require(
                try await api.call(chainID, "eth_getTransactionReceipt", [Hex.encode(first.hash)])["result"] as? [String: Any]
            )
            #expect(receipt["status"] as? String == "0x1")
            #expect(receipt["from"] as? String == alice.checksummed)
            let blockHash = try #require(receipt["blockHash"] as? String)
            let byHash = try #require(try await api.call(chainID, "eth_getBlockByHash", [blockHash, true])["result"] as? [String: Any])
            let transactions = try #require(byHash["transactions"] as? [[String: Any]])
            #expect(transactions.contains { $0["hash"] as? String == Hex.encode(first.hash) && $0["from"] as? String == alice.checksummed })
            let number = try #require(byHash["number"] as? String)
            let byNumber = try #require(try await api.call(chainID, "eth_getBlockByNumber", [number, false])["result"] as? [String: Any])
            #expect(byNumber["hash"] as? String == blockHash)
            #expect((byNumber["transactions"] as? [String])?.contains(Hex.encode(first.hash)) == true)
            #expect(try await api.call(chainID, "eth_getBlockByNumber", ["0xffff", false])["result"] is NSNull)
            #expect(try await api.call(chainID, "eth_getBlockByNumber", ["earliest", false])["result"] is [String: Any])
            #expect(try await api.call(chainID, "eth_getCode", [bob.checksummed, "latest"])["result"] as? String == "0x")
            #expect(
                try await api.call(chainID, "eth_estimateGas", [["from": alice.checksummed, "to": bob.checksummed, "value": "0x1"]])["result"]
                    as? String == "0x5208"
            )
            #expect(try await api.call(chainID, "eth_gasPrice")["result"] as? String == "0x0")
            let history = try #require(try await api.call(chainID, "eth_feeHistory", ["0x2", "latest", [25, 75]])["result"] as? [String: Any])
            #expect((history["reward"] as? [[String]])?.first?.count == 2)
        }
    }

    @Test("JSON-RPC 2.0 errors: parse, invalid request, unknown method, bad params, refused transaction; batches", arguments: TestBackend.enabled)
    func errors(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 5_200
            #expect(try await api.createChain(chainID).status == .created)
            func code(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }

            let notJSON = try await api.client.execute(
                uri: "/v1/rails/localchain/chains/\(chainID)/rpc",
                method: .post,
                headers: jsonHeaders,
                body: ByteBuffer(string: "{not json")
            )
            #expect(notJSON.status == .ok)
            #expect(code(try notJSON.json()) == -32700)
            #expect(code(try (try await api.rpc(chainID, ["method": "eth_chainId", "id": 1])).json()) == -32600)
            #expect(code(try await api.call(chainID, "eth_mine")) == -32601)
            #expect(code(try await api.call(chainID, "eth_getBalance", ["0x1234"])) == -32602)
            #expect(code(try await api.call(chainID, "eth_sendRawTransaction", ["0xzz"])) == -32602)
            let wrongChain = try signedTransfer(TestKeys.alice, chainID: 1, nonce: 0, to: TestKeys.address(TestKeys.bob), value: 1)
            let refused = try await api.call(chainID, "eth_sendRawTransaction", [Hex.encode(wrongChain.raw)])
            #expect(code(refused) == -32003)  // EIP-1474: transaction rejected
            #expect((refused["error"] as? [String: Any])?["data"] as? String == "wrong_chain_id")
            #expect(try await api.poolCount(chainID) == 0)

            let batch = try await api.rpc(
                chainID,
                [
                    ["jsonrpc": "2.0", "id": 1, "method": "eth_chainId"],
                    ["jsonrpc": "2.0", "method": "eth_chainId"],  // a notification: no answer
                    ["jsonrpc": "2.0", "id": "b", "method": "nope"],
                    42,
                ]
            )
            let answers = try #require(try JSONSerialization.jsonObject(with: Data(batch.body.readableBytesView)) as? [[String: Any]])
            #expect(answers.count == 3)
            #expect(answers[0]["result"] as? String == "0x1450")
            #expect(code(answers[1]) == -32601 && answers[1]["id"] as? String == "b")
            #expect(code(answers[2]) == -32600)
            #expect(code(try (try await api.rpc(chainID, [Any]())).json()) == -32600)
            let unknown = try await api.rpc(999_999, ["jsonrpc": "2.0", "id": 1, "method": "eth_chainId"])
            #expect(unknown.status == .notFound)
        }
    }
    @Test("a database out of reach is -32002 database_unavailable, which a wallet may retry; other failures say nothing")
    func databaseUnavailable() {
        let lost = JSONRPCEndpoint.rpcError(DatabaseError(.connection, "server closed the connection"))
        #expect(lost.code == -32002)
        #expect(lost.data == "database_unavailable")
        #expect(JSONRPCEndpoint.rpcError(DatabaseError(.closed, "the database is closed")).code == -32002)
        let failed = JSONRPCEndpoint.rpcError(DatabaseError(.query, "syntax error at or near SELEC"))
        #expect(failed.code == -32603 && failed.message == "internal error" && failed.data == nil)
    }

    @Test("a batch of sends is stored in order, each call answered on its own, and a resent batch changes nothing", arguments: TestBackend.enabled)
    func sendBatch(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 5_300
            // Blocks 8 s apart: both sends are answered before the next block takes the pool, even
            // on a machine busy with the rest of the suite.
            #expect(try await api.createChain(chainID, intervalMs: 8_000).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "100").status == .accepted)
            try await api.waitSealed(chainID)
            let eventsBefore = try await api.eventCount()
            let transfers = try (0..<4).map { try signedTransfer(TestKeys.alice, chainID: chainID, nonce: UInt64($0), to: bob, value: 10) }
            let wrongChain = try signedTransfer(TestKeys.alice, chainID: 1, nonce: 4, to: bob, value: 1)
            // 40 pending before it: 61 more is more than Alice holds.
            let tooMuch = try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 4, to: bob, value: 61)
            func send(_ id: Any?, _ raw: String) -> [String: Any] {
                var call: [String: Any] = ["jsonrpc": "2.0", "method": "eth_sendRawTransaction", "params": [raw]]
                if let id { call["id"] = id }
                return call
            }
            let batch: [Any] = [
                send(0, Hex.encode(transfers[0].raw)), send(1, Hex.encode(transfers[1].raw)), send(2, "0xzz"),
                send(3, Hex.encode(wrongChain.raw)), send("x", Hex.encode(transfers[2].raw)),
                send(nil, Hex.encode(transfers[3].raw)),  // a notification: stored, not answered
                send(5, Hex.encode(tooMuch.raw)),
                ["jsonrpc": "2.0", "id": 6, "method": "eth_getTransactionCount", "params": [alice.checksummed, "pending"]],
            ]
            func code(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }
            func data(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["data"] as? String }
            for attempt in 0..<2 {
                let response = try await api.rpc(chainID, batch)
                let answers = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [[String: Any]])
                try #require(answers.count == 7, "attempt \(attempt): \(answers)")
                #expect(answers[0]["result"] as? String == Hex.encode(transfers[0].hash) && answers[0]["id"] as? Int == 0)
                #expect(answers[1]["result"] as? String == Hex.encode(transfers[1].hash))
                #expect(code(answers[2]) == -32602 && answers[2]["id"] as? Int == 2)
                #expect(code(answers[3]) == -32003 && data(answers[3]) == "wrong_chain_id")
                #expect(answers[4]["result"] as? String == Hex.encode(transfers[2].hash) && answers[4]["id"] as? String == "x")
                #expect(code(answers[5]) == -32003 && data(answers[5]) == "insufficient_funds" && answers[5]["id"] as? Int == 5)
                #expect(answers[6]["result"] as? String == "0x4")
                // The second time every transaction is known: nothing new is stored or announced.
                #expect(try await api.poolCount(chainID) == 4)
                #expect(try await api.eventCount() == eventsBefore + 4)
            }
            try await api.waitSealed(chainID)
            #expect(try await api.account(chainID, alice)?.nonce == 4)
            #expect(try await api.account(chainID, alice)?.balance == 60)
            try await hub.ledger.expectVerified()
        }
    }
}
