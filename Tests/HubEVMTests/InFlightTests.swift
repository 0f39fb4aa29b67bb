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

/// Alice's custodial account on the hub's own chain and a sender: both tests send a plain transfer
/// from it, through a client of their choosing.
struct AliceSending {
    let plugin: EVMPlugin
    let chain: EVMChainSettings
    let reliable: ChainClient
    let from: EthereumAddress
    let key: [UInt8]
    let sender: TransactionSender

    init(_ hub: Hub) async throws {
        plugin = try #require(hub.plugins.running.first { $0.id == EVMPlugin.id }?.plugin as? EVMPlugin)
        chain = try plugin.chains.settings(nil)
        reliable = try plugin.chains.client(chain)
        from = try EthereumAddress(try await plugin.accounts.account(for: testUserID("alice"), on: chain.id).address)
        key = try await plugin.accounts.privateKey(user: testUserID("alice"), chain: chain.id).1
        sender = TransactionSender(context: plugin.context, locks: SenderLocks())
    }

    /// A client whose transport wraps the chain's own.
    func client(_ wrap: (any ChainTransport) -> any ChainTransport) -> ChainClient {
        ChainClient(chain: chain.id, transport: wrap(reliable.transport))
    }

    /// Sends a transfer of nothing to a fixed address through `client`.
    func send(through client: ChainClient) async throws -> EVMOperation {
        let to = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: [UInt8](repeating: 3, count: 32)))
        let request = TransactionSender.Request(
            chain: chain,
            client: client,
            userID: testUserID("alice"),
            kind: "transfer",
            subject: to.checksummed,
            to: to,
            data: []
        )
        return try await sender.send(request, privateKey: key, from: from)
    }

    /// `operation` once the tracker (a service of the running hub) has settled it, or as it is
    /// after 30 s.
    func settled(_ operation: EVMOperation) async throws -> EVMOperation? {
        var current: EVMOperation?
        for _ in 0..<300 {
            current = try await plugin.items.operation(operation.id)
            if current?.state != .pending { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return current
    }
}

extension EVMRailTests {
    @Suite("EVM rail: transactions in flight", .timeLimit(.minutes(3)))
    struct InFlightTests {
        @Test("a transaction stored but never received is sent by the tracker and lands once", arguments: TestBackend.enabled)
        func lostSend(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let alice = try await AliceSending(hub)
                let operation = try await alice.send(through: alice.client { DroppingSendTransport(inner: $0) })
                #expect(operation.state == .pending)
                // The tracker finds the node does not know it and sends it.
                #expect(try await alice.settled(operation)?.state == .confirmed)
                let reliable = alice.reliable
                #expect(try await reliable.quantity("eth_getTransactionCount", [alice.from.checksummed, "latest"]) == 1, "sent exactly once")
                let receipt = try await reliable.call("eth_getTransactionReceipt", [operation.txHash]) as? [String: Any]
                #expect(receipt?["status"] as? String == "0x1")
            }
        }

        @Test("a transaction the node refuses gives its nonce back: the account's next send takes it and lands", arguments: TestBackend.enabled)
        func refusedSendFreesNonce(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let alice = try await AliceSending(hub)
                await #expect(throws: EVMError.self) { try await alice.send(through: alice.client { RefusingSendTransport(inner: $0) }) }
                let refused = try await alice.plugin.context.database.read { connection in
                    try connection.queryFirst("SELECT state, nonce FROM evm_operations WHERE from_address = \(alice.from.checksummed)")
                }
                #expect(try refused?.text("state") == "failed")
                #expect(try refused?.int("nonce") == 0)

                // The refused transaction never reached a block, so nonce 0 is still the account's next.
                let operation = try await alice.send(through: alice.reliable)
                #expect(operation.nonce == 0)
                #expect(try await alice.settled(operation)?.state == .confirmed)
            }
        }
    }
}
