import ChainKit
import Foundation
import Testing

/// Ethereum's state root against py-trie (tools/vectors/gen_state_root.py): storage roots and
/// state roots of account sets with contracts, empty accounts, zero slots and large balances.
@Suite("Ethereum state root")
struct EthereumStateRootTests {
    @Test("storage and state roots match py-trie's")
    func goldenVectors() throws {
        for vector in try VectorFile("eth_state_root").of() {
            var accounts: [EthereumAccountState] = []
            for account in try #require(vector["accounts"] as? [[String: Any]]) {
                let storage = try #require(account["storage"] as? [[String]]).map { pair in
                    (slot: try Hex.decode(pair[0]), value: try Hex.decode(pair[1]))
                }
                let storageRoot = EthereumStateRoot.storageRoot(storage)
                #expect(Hex.encode(storageRoot) == (try account.string("storage_root")), "\(vector.name)")
                accounts.append(
                    EthereumAccountState(
                        address: try EthereumAddress(try account.string("address")),
                        nonce: UInt64(try #require(account["nonce"] as? Int)),
                        balance: try UInt256(decimal: try account.string("balance")),
                        storageRoot: storageRoot,
                        codeHash: Keccak256.hash(try Hex.decode(try account.string("code")))
                    )
                )
            }
            #expect(Hex.encode(EthereumStateRoot.root(accounts)) == (try vector.string("state_root")), "\(vector.name)")
            #expect(EthereumStateRoot.root(accounts.reversed()) == EthereumStateRoot.root(accounts), "order does not matter")
        }
    }

    @Test("proofs: root first, each node referred to by hash in the one before, the leaf last; absent keys too")
    func proofs() throws {
        let vector = try #require(try VectorFile("eth_state_root").of().first { $0.name == "many_accounts" })
        var accounts: [EthereumAccountState] = []
        for account in try #require(vector["accounts"] as? [[String: Any]]) {
            accounts.append(
                EthereumAccountState(
                    address: try EthereumAddress(try account.string("address")),
                    nonce: UInt64(try #require(account["nonce"] as? Int)),
                    balance: try UInt256(decimal: try account.string("balance")),
                    storageRoot: try Hex.decode(try account.string("storage_root")),
                    codeHash: Keccak256.hash(try Hex.decode(try account.string("code")))
                )
            )
        }
        let entries = EthereumStateRoot.accountEntries(accounts)
        let root = try Hex.decode(try vector.string("state_root"))
        let absent = Keccak256.hash(Array("no such account".utf8))
        for key in entries.prefix(20).map(\.key) + [absent] {
            let proof = MerklePatriciaTrie.proof(entries, key: key)
            #expect(Keccak256.hash(try #require(proof.first)) == root)
            for (parent, child) in zip(proof, proof.dropFirst()) {
                let hash = Keccak256.hash(child)
                #expect(parent.indices.dropLast(31).contains { Array(parent[$0..<($0 + 32)]) == hash }, "a node is not referred to by the one before")
            }
            if key != absent, let value = entries.first(where: { $0.key == key })?.value {
                let leaf = try #require(proof.last)
                #expect(leaf.indices.dropLast(value.count - 1).contains { Array(leaf[$0..<($0 + value.count)]) == value }, "the leaf holds the value")
            }
        }
        #expect(MerklePatriciaTrie.proof([], key: absent).isEmpty)
    }

    @Test("the empty roots are Ethereum's constants")
    func emptyRoots() {
        #expect(Hex.encode(EthereumStateRoot.root([])) == "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
        #expect(Hex.encode(EthereumStateRoot.emptyCodeHash) == "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
    }

    /// The cost of recomputing a chain's account trie per block, by size (run with
    /// `HUB_MEASURE_STATE_ROOT=1`; the README quotes the figures).
    @Test(
        "measure: the account trie's root over 1k, 10k and 100k accounts",
        .enabled(if: ProcessInfo.processInfo.environment["HUB_MEASURE_STATE_ROOT"] != nil)
    )
    func measure() throws {
        for count in [1_000, 10_000, 100_000] {
            let accounts = (0..<count).map { i in
                EthereumAccountState(
                    address: try! EthereumAddress(bytes: Array(Keccak256.hash(Array("\(i)".utf8)).prefix(20))),
                    nonce: UInt64(i % 7),
                    balance: UInt256(UInt64(i) * 1_000)
                )
            }
            let clock = ContinuousClock()
            let start = clock.now
            let root = EthereumStateRoot.root(accounts)
            let trie = clock.now - start
            let legacy = accounts.map { LocalChainAccountState(address: $0.address, nonce: $0.nonce, balance: $0.balance.low) }
            let legacyStart = clock.now
            _ = LocalChainRoots.state(legacy)
            print(
                "state root over \(count) accounts: trie \(trie), the former keccak tree \(clock.now - legacyStart) (\(Hex.encode(root).prefix(10)))"
            )
        }
    }
}
