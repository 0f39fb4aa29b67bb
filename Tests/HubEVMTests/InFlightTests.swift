import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubEVM

/// A transport that never delivers `eth_sendRawTransaction`: the process "dies" between storing a
/// signed transaction and the node receiving it (or the node is unreachable at that moment).
struct DroppingSendTransport: ChainTransport {
    let inner: any ChainTransport

    func send(_ body: [UInt8]) async throws -> [UInt8] {
        if String(decoding: body, as: UTF8.self).contains("eth_sendRawTransaction") {
            throw EVMError.chainUnavailable("hub", "the send was lost (test)")
        }
        return try await inner.send(body)
    }
}

/// A node that refuses every `eth_sendRawTransaction`, as a node refuses a transaction it will
/// not take into its pool, and answers everything else.
struct RefusingSendTransport: ChainTransport {
    let inner: any ChainTransport

    func send(_ body: [UInt8]) async throws -> [UInt8] {
        if String(decoding: body, as: UTF8.self).contains("eth_sendRawTransaction") {
            return Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"refused (test)"}}"#.utf8)
        }
        return try await inner.send(body)
    }
}

extension EVMRailTests {
    @Suite("EVM rail: transactions in flight", .timeLimit(.minutes(3)))
    struct InFlightTests {
        @Test("a transaction stored but never received is sent by the tracker and lands once", arguments: TestBackend.enabled)
        func lostSend(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let plugin = try #require(hub.plugins.running.first { $0.id == EVMPlugin.id }?.plugin as? EVMPlugin)
                let chain = try plugin.chains.settings(nil)
                let reliable = try plugin.chains.client(chain)
                let lossy = ChainClient(chain: chain.id, transport: DroppingSendTransport(inner: reliable.transport))
                let account = try await plugin.accounts.account(for: testUserID("alice"), on: chain.id)
                let (_, key) = try await plugin.accounts.privateKey(user: testUserID("alice"), chain: chain.id)
                let sender = TransactionSender(context: plugin.context, locks: SenderLocks())
                let to = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: [UInt8](repeating: 3, count: 32)))
                let operation = try await sender.send(
                    TransactionSender.Request(
                        chain: chain,
                        client: lossy,
                        userID: testUserID("alice"),
                        kind: "transfer",
                        subject: to.checksummed,
                        to: to,
                        data: []
                    ),
                    privateKey: key,
                    from: try EthereumAddress(account.address)
                )
                #expect(operation.state == .pending)
                // The tracker (a service of the running hub) finds the node does not know it and sends it.
                var settled: EVMOperation?
                for _ in 0..<300 {
                    settled = try await plugin.items.operation(operation.id)
                    if settled?.state != .pending { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(settled?.state == .confirmed)
                #expect(try await reliable.quantity("eth_getTransactionCount", [account.address, "latest"]) == 1, "sent exactly once")
                let receipt = try await reliable.call("eth_getTransactionReceipt", [operation.txHash]) as? [String: Any]
                #expect(receipt?["status"] as? String == "0x1")
            }
        }

        @Test("a transaction the node refuses gives its nonce back: the account's next send takes it and lands", arguments: TestBackend.enabled)
        func refusedSendFreesNonce(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let plugin = try #require(hub.plugins.running.first { $0.id == EVMPlugin.id }?.plugin as? EVMPlugin)
                let chain = try plugin.chains.settings(nil)
                let reliable = try plugin.chains.client(chain)
                let refusing = ChainClient(chain: chain.id, transport: RefusingSendTransport(inner: reliable.transport))
                let account = try await plugin.accounts.account(for: testUserID("alice"), on: chain.id)
                let (_, key) = try await plugin.accounts.privateKey(user: testUserID("alice"), chain: chain.id)
                let from = try EthereumAddress(account.address)
                let sender = TransactionSender(context: plugin.context, locks: SenderLocks())
                let to = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: [UInt8](repeating: 3, count: 32)))
                func request(_ client: ChainClient) -> TransactionSender.Request {
                    TransactionSender.Request(
                        chain: chain,
                        client: client,
                        userID: testUserID("alice"),
                        kind: "transfer",
                        subject: to.checksummed,
                        to: to,
                        data: []
                    )
                }
                await #expect(throws: EVMError.self) { try await sender.send(request(refusing), privateKey: key, from: from) }
                let refused = try await plugin.context.database.read { connection in
                    try connection.queryFirst("SELECT state, nonce, error FROM evm_operations WHERE from_address = \(from.checksummed)")
                }
                #expect(try refused?.text("state") == "failed")
                #expect(try refused?.int("nonce") == 0)

                // The refused transaction never reached a block, so nonce 0 is still the account's next.
                let operation = try await sender.send(request(reliable), privateKey: key, from: from)
                #expect(operation.nonce == 0)
                var settled: EVMOperation?
                for _ in 0..<300 {
                    settled = try await plugin.items.operation(operation.id)
                    if settled?.state != .pending { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(settled?.state == .confirmed)
            }
        }
    }
}
