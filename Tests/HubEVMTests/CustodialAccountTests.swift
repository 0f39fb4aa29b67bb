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

extension EVMRailTests {
    @Suite("EVM rail: chains and custodial accounts", .timeLimit(.minutes(4)))
    struct CustodialAccountTests {
        @Test("with no configuration the rail creates its chain on this hub and reports it ready", arguments: TestBackend.enabled)
        func hostedDefaultChain(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                try await client.waitEVMChainsReady()
                let chains = try #require(try await client.evm(.get, "/chains", as: "alice").object["data"] as? [[String: Any]])
                #expect(chains.count == 1)
                #expect(chains.first?["id"] as? String == "hub")
                #expect(chains.first?["chain_id"] as? Int == Int(EVMChainSettings.hostedDefault.chainID))
                #expect(chains.first?["endpoint"] as? String == "hub")
                #expect(chains.first?["is_default"] as? Bool == true)
                // The chain is the local chain's, made for the rail: admins see it there.
                let chain = try await client.execute(
                    uri: "/v1/rails/localchain/chains/\(EVMChainSettings.hostedDefault.chainID)",
                    method: .get,
                    headers: bearer("root", "admin")
                )
                #expect(chain.status == .ok, "\(chain.text)")
                #expect(chain.object["organiser_id"] as? String == "rail:evm")
            }
        }

        @Test("an account is opened once per user and chain, even by racing requests", arguments: TestBackend.enabled)
        func openOnce(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let first = try await client.evm(.post, "/accounts", as: "alice", [:])
                #expect(first.status == .created, "\(first.text)")
                let address = try #require(first.object["address"] as? String)
                #expect(try EthereumAddress(address).checksummed == address)
                #expect(first.object["chain"] as? String == "hub")
                let again = try await client.evm(.post, "/accounts", as: "alice", ["chain": "hub"])
                #expect(again.status == .ok)
                #expect(again.object["address"] as? String == address)
                let bob = try await client.evm(.post, "/accounts", as: "bob", [:])
                #expect(bob.object["address"] as? String != address)

                // Eight first uses at once: one account, one event.
                let addresses = try await withThrowingTaskGroup(of: String?.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await client.evm(.post, "/accounts", as: "carol", [:]).object["address"] as? String }
                    }
                    var all: [String?] = []
                    for try await one in group { all.append(one) }
                    return all
                }
                #expect(Set(addresses).count == 1 && addresses.allSatisfy { $0 != nil })
                #expect(try await count(EVMEvents.accountCreated, in: hub) == 3)

                let mine = try #require(try await client.evm(.get, "/accounts", as: "alice").object["data"] as? [[String: Any]])
                #expect(mine.map { $0["address"] as? String } == [address])
            }
        }

        @Test("an unknown chain is refused and opens nothing", arguments: TestBackend.enabled)
        func unknownChain(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let response = try await client.evm(.post, "/accounts", as: "alice", ["chain": "mainnet"])
                #expect(response.status == .notFound)
                #expect(response.object["code"] as? String == "unknown_chain")
                #expect(try await count(EVMEvents.accountCreated, in: hub) == 0)
                let unauthenticated = try await client.evm(.post, "/accounts", as: nil, [:])
                #expect(unauthenticated.status == .unauthorized)
            }
        }

        @Test("the owner exports their key as a keystore v3 file that opens with their password", arguments: TestBackend.enabled)
        func exportKeystore(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let address = try #require(try await client.evm(.post, "/accounts", as: "alice", [:]).object["address"] as? String)
                let short = try await client.evm(.post, "/accounts/hub/keystore", as: "alice", ["password": "short"])
                #expect(short.status == .unprocessableContent)
                #expect(short.object["field"] as? String == "password")
                let none = try await client.evm(.post, "/accounts/hub/keystore", as: "bob", ["password": "a long password"])
                #expect(none.status == .notFound)
                #expect(try await count(EVMEvents.accountExported, in: hub) == 0)

                let exported = try await client.evm(.post, "/accounts/hub/keystore", as: "alice", ["password": "a long password"])
                #expect(exported.status == .ok, "\(exported.text)")
                let key = try Keystore.decrypt(exported.text, password: "a long password")
                #expect(try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: key)).checksummed == address)
                #expect(throws: (any Error).self) { try Keystore.decrypt(exported.text, password: "another password") }
                #expect(try await count(EVMEvents.accountExported, in: hub) == 1)
                #expect(exported.headers[.cacheControl] == "no-store")
            }
        }

        @Test("an export with an Idempotency-Key keeps no key material: a retry exports again", arguments: TestBackend.enabled)
        func exportIsNotKeptForReplay(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                _ = try await client.evm(.post, "/accounts", as: "alice", [:])
                let headers = bearer("alice") + jsonHeaders + [.idempotencyKey: "export-1"]
                let body = jsonBody(["password": "a long password"])
                let first = try await client.execute(uri: "/v1/rails/evm/accounts/hub/keystore", method: .post, headers: headers, body: body)
                let retry = try await client.execute(uri: "/v1/rails/evm/accounts/hub/keystore", method: .post, headers: headers, body: body)
                #expect(first.status == .ok && retry.status == .ok, "\(retry.text)")
                #expect(retry.headers[.idempotencyReplayed] == nil)
                // A fresh salt and IV each time: the retry ran again instead of replaying the first file.
                #expect(first.text != retry.text)
                #expect(try Keystore.decrypt(retry.text, password: "a long password") == Keystore.decrypt(first.text, password: "a long password"))
                #expect(try await count(EVMEvents.accountExported, in: hub) == 2)
                let kept = try await hub.database.read { connection in
                    try connection.query("SELECT key, body FROM hub_idempotency_keys").map { try $0.optionalBytes("body") ?? [] }
                }
                #expect(kept.isEmpty, "\(kept.map { String(decoding: $0, as: UTF8.self) })")

                // An ordinary POST with a key is still recorded and replayed.
                let open = bearer("alice") + jsonHeaders + [.idempotencyKey: "open-1"]
                let opened = try await client.execute(uri: "/v1/rails/evm/accounts", method: .post, headers: open, body: jsonBody([:]))
                let again = try await client.execute(uri: "/v1/rails/evm/accounts", method: .post, headers: open, body: jsonBody([:]))
                #expect(again.headers[.idempotencyReplayed] == "true")
                #expect(again.text == opened.text)
            }
        }

        @Test("a sealed key opens only for its own chain and address")
        func sealedKeyBinding() throws {
            let vaultKey = KeyEncryptionKey.random()
            let (privateKey, address) = CustodialKeys.newKey()
            let sealed = vaultKey.seal(privateKey, associatedData: Array("evm:custodial:hub:".utf8) + address.bytes)
            #expect(vaultKey.open(sealed, associatedData: Array("evm:custodial:hub:".utf8) + address.bytes) == privateKey)
            #expect(vaultKey.open(sealed, associatedData: Array("evm:custodial:other:".utf8) + address.bytes) == nil)
        }

        @Test("configuration: chains by id with http(s) or the hub's own endpoint; mistakes name their field")
        func configuration() throws {
            let configured = try EVMConfiguration(
                PluginConfig(
                    json:
                        #"{"chains": [{"id": "hub", "chain_id": 77, "rpc": "hub"}, {"id": "kaia-test", "chain_id": 1001, "rpc": "https://rpc.example/kairos"}], "default_chain": "kaia-test"}"#
                )
            )
            #expect(configured.chains.map(\.id) == ["hub", "kaia-test"])
            #expect(configured.defaultChain == "kaia-test")
            #expect(configured.chains[0].confirmations == 0 && configured.chains[1].confirmations == 12)
            #expect(try EVMConfiguration(PluginConfig()).chains == [.hostedDefault])

            let mistakes: [(String, String)] = [
                (#"{"chains": []}"#, "chains"),
                (#"{"chains": [{"id": "a", "chain_id": 1, "rpc": "ftp://x"}]}"#, "chains[0].rpc"),
                (#"{"chains": [{"id": "A B", "chain_id": 1, "rpc": "hub"}]}"#, "chains[0].id"),
                (#"{"chains": [{"id": "a", "chain_id": 0, "rpc": "hub"}]}"#, "chains[0].chain_id"),
                (#"{"chains": [{"id": "a", "chain_id": 1, "rpc": "hub"}, {"id": "a", "chain_id": 2, "rpc": "hub"}]}"#, "chains"),
                (#"{"chains": [{"id": "a", "chain_id": 1, "rpc": "hub", "confirmations": -1}]}"#, "chains[0].confirmations"),
                (#"{"default_chain": "elsewhere"}"#, "default_chain"),
            ]
            for (json, field) in mistakes {
                #expect(throws: PluginConfigError.self) { try EVMConfiguration(PluginConfig(json: json)) }
                do {
                    _ = try EVMConfiguration(PluginConfig(json: json))
                } catch let error as PluginConfigError {
                    #expect(error.field == field, "\(json)")
                }
            }
        }
    }
}
