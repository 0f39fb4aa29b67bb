import ChainKit
import Foundation
import HubKernel
import Testing

@testable import HubLocalChain

/// The pool's rules without a database: what ``TransactionIntake`` decides for a batch from the
/// state one unit of work read.
@Suite("Local chain: pool admission")
struct PoolAdmissionTests {
    static let chainID: UInt64 = 778
    static let alice = [UInt8](repeating: 0x11, count: 32)
    static let validatorKey = [UInt8](repeating: 0x22, count: 32)
    static let aliceAddress = try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: alice))
    static let validator = try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: validatorKey))
    static let bob = try! EthereumAddress("0x000000000000000000000000000000000000b0b0")

    static func transfer(_ key: [UInt8] = alice, nonce: UInt64, value: UInt64 = 1, to: EthereumAddress = bob) throws -> ValidatedTransaction {
        let signed = try EthereumTransaction(envelope: .legacy, chainID: chainID, nonce: nonce, gasLimit: 21_000, to: to, value: UInt256(value))
            .signed(privateKey: key)
        return try ValidatedTransaction.validate(signed.raw, chainID: chainID)
    }

    static func chain(_ status: LocalChain.Status = .active) throws -> LocalChain {
        LocalChain(
            chainID: chainID,
            name: "test",
            currencyName: "Test",
            symbol: "TST",
            decimals: 0,
            asset: try #require(AssetCode("EVT-778")),
            blockIntervalMs: 1000,
            host: nil,
            status: status,
            organiserID: "org",
            validator: validator,
            sealedKey: [],
            genesisHash: "",
            headNumber: 0,
            headHash: "",
            headTimeMs: 0,
            createdAt: 0
        )
    }

    static func admission(
        status: LocalChain.Status = .active,
        alice: PoolAdmission.Sender = .init(nonce: 0, balance: 10),
        known: Set<String> = [],
        poolCount: Int = 0,
        maxNonceGap: UInt64 = 3,
        maxPool: Int = 100
    ) throws -> PoolAdmission {
        var configuration = LocalChainConfiguration()
        configuration.maxNonceGap = maxNonceGap
        configuration.maxPoolPerChain = maxPool
        return PoolAdmission(
            chain: try chain(status),
            configuration: configuration,
            known: known,
            senders: [aliceAddress: alice],
            poolCount: poolCount
        )
    }

    func code(_ body: () throws -> PoolAdmission.Decision) -> String {
        do {
            return "\(try body())"
        } catch let rejection as TransactionRejection {
            return rejection.code
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("a batch is checked in order: each accepted transaction counts as pending for the next")
    func batchInOrder() throws {
        var admission = try Self.admission()
        for nonce in 0...3 { #expect(try admission.admit(try Self.transfer(nonce: UInt64(nonce), value: 2)) == .accept) }
        // Nonce 4 is more than 3 ahead of the sealed nonce 0, whatever waits before it.
        #expect(code { try admission.admit(try Self.transfer(nonce: 4)) } == "nonce_too_high")
        // Nonce 2 again, with other bytes: pending, not replaced.
        #expect(code { try admission.admit(try Self.transfer(nonce: 2, value: 1)) } == "nonce_pending")
        // The same bytes again: known, nothing changes.
        #expect(try admission.admit(try Self.transfer(nonce: 2, value: 2)) == .known)
        #expect(admission.poolCount == 4)
        #expect(admission.senders[Self.aliceAddress]?.pendingValue == 8)
    }

    @Test("funds count what the sender's pending transactions already spend")
    func fundsIncludePending() throws {
        var admission = try Self.admission(alice: .init(nonce: 5, balance: 10, pendingNonces: [5], pendingValue: 6))
        #expect(code { try admission.admit(try Self.transfer(nonce: 6, value: 5)) } == "insufficient_funds")
        #expect(try admission.admit(try Self.transfer(nonce: 6, value: 4)) == .accept)
        #expect(code { try admission.admit(try Self.transfer(nonce: 7, value: 1)) } == "insufficient_funds")
        #expect(code { try admission.admit(try Self.transfer(nonce: 4)) } == "nonce_too_low")
        // A sender the chain has never seen holds nothing.
        #expect(code { try admission.admit(try Self.transfer(Self.validatorKey.map { $0 ^ 1 }, nonce: 0)) } == "insufficient_funds")
    }

    @Test("a known hash is answered before the chain's status; a paused or closed chain takes nothing new")
    func knownThenStatus() throws {
        let sealed = try Self.transfer(nonce: 0)
        var paused = try Self.admission(status: .paused, known: [sealed.hashHex])
        #expect(try paused.admit(sealed) == .known)
        #expect(code { try paused.admit(try Self.transfer(nonce: 1)) } == "chain_paused")
        var closed = try Self.admission(status: .closed)
        #expect(code { try closed.admit(try Self.transfer(nonce: 0)) } == "chain_closed")
    }

    @Test("a full pool refuses, and a refusal changes nothing")
    func poolFull() throws {
        var admission = try Self.admission(poolCount: 99)
        #expect(try admission.admit(try Self.transfer(nonce: 0)) == .accept)
        #expect(code { try admission.admit(try Self.transfer(nonce: 1)) } == "pool_full")
        #expect(admission.poolCount == 100)
        #expect(admission.senders[Self.aliceAddress]?.pendingNonces == [0])
    }

    @Test("the validator's own transactions pass only as the hub's, and are not held to the nonce gap")
    func validator() throws {
        var admission = try Self.admission()
        let grant = { (nonce: UInt64) in try Self.transfer(Self.validatorKey, nonce: nonce, value: 1_000) }
        #expect(code { try admission.admit(try grant(0)) } == "validator_sender")
        #expect(code { try admission.admit(try Self.transfer(nonce: 0, to: Self.validator)) } == "validator_recipient")
        // The hub numbers its grants itself: a whole event's grants may wait at once.
        for nonce in 0..<10 { #expect(try admission.admit(try grant(UInt64(nonce)), allowValidator: true) == .accept) }
        #expect(try admission.admit(try Self.transfer(nonce: 0, to: Self.validator), allowValidator: true) == .accept)
    }
}

@Suite("Local chain: JSON-RPC answers' JSON")
struct RPCJSONTests {
    func roundTrip(_ value: Any) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try RPCJSON.data(value)), options: [.fragmentsAllowed])
    }

    @Test("ids keep their type: integers, strings, null; booleans are not numbers")
    func ids() throws {
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(#"[1, "1", null, true, 0, -7, 1.5, 18446744073709551615]"#.utf8)) as? [Any]
        )
        let text = String(decoding: try RPCJSON.data(parsed), as: UTF8.self)
        #expect(text == #"[1,"1",null,true,0,-7,1.5,18446744073709551615]"#)
        #expect(String(decoding: try RPCJSON.data([Int(42), true, false, 0.5] as [Any]), as: UTF8.self) == "[42,true,false,0.5]")
    }

    @Test("strings are escaped as JSON requires, slashes left as they are")
    func strings() throws {
        let text = "a\"b\\c/d\n\t\u{1}é"
        #expect(String(decoding: try RPCJSON.data(text), as: UTF8.self) == #""a\"b\\c/d\n\t\u0001é""#)
        #expect(try roundTrip(text) as? String == text)
    }

    @Test("an answer with nested objects and arrays reads back the same")
    func nested() throws {
        let answer: [String: Any] = [
            "jsonrpc": "2.0", "id": 3,
            "result": ["hash": "0xab", "transactions": ["0x1", "0x2"], "reward": [["0x0"]], "gasUsedRatio": [0.0], "pending": NSNull()],
        ]
        let back = try #require(try roundTrip(answer) as? [String: Any])
        #expect(back["id"] as? Int == 3)
        let result = try #require(back["result"] as? [String: Any])
        #expect(result["transactions"] as? [String] == ["0x1", "0x2"])
        #expect(result["reward"] as? [[String]] == [["0x0"]])
        #expect(result["pending"] is NSNull)
    }
}
