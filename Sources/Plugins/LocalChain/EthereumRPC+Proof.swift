import ChainKit
import EVMKit
import Foundation
import HubKernel

/// `eth_getProof` (EIP-1186): an account and some of its storage slots with their Merkle proofs
/// against the head's state root, so a client can check them without trusting this node. Built
/// from the current state (the account trie from every account, the storage trie from the
/// contract's slots): only chains with Ethereum's state root have proofs.
extension EthereumRPC {
    func proof(_ params: [Any], chainID: UInt64) async throws -> [String: Any] {
        let address = try Self.address(params, 0)
        guard params.count > 1, let rawKeys = params[1] as? [Any] else {
            throw RPCError.invalidParams("parameter 1 must be a list of storage keys")
        }
        let keys = try rawKeys.map { raw -> U256 in
            guard let text = raw as? String, let key = RPCFormat.parseQuantity256(text) else {
                throw RPCError.invalidParams("a storage key is a 0x quantity of up to 32 bytes")
            }
            return U256(key)
        }
        try await requireCurrentState(params, 2, chainID: chainID)
        let (chain, accounts, slots) = try await context.database.read { connection in
            (
                try LocalChainStore.chain(chainID, on: connection),
                try LocalChainStore.accounts(chainID: chainID, on: connection),
                try ContractStore.slots(chainID: chainID, address: address, on: connection)
            )
        }
        guard chain?.stateRoot == .ethereum else {
            throw RPCError(code: -32000, message: "this chain's state root predates Ethereum's trie: it has no proofs")
        }
        let account =
            accounts.first { $0.address == address }?.ethereumState ?? EthereumAccountState(address: address, nonce: 0, balance: .zero)
        let accountProof = MerklePatriciaTrie.proof(
            EthereumStateRoot.accountEntries(accounts.map(\.ethereumState)),
            key: Keccak256.hash(address.bytes)
        )
        let storage = EthereumStateRoot.storageEntries(slots.map { (slot: $0.key.bigEndianBytes, value: $0.value.bigEndianBytes) })
        let storageProof: [[String: Any]] = keys.map { key in
            [
                "key": Hex.encode(key.bigEndianBytes),
                "value": RPCFormat.quantity(slots[key].map { $0.chainKitValue } ?? .zero),
                "proof": MerklePatriciaTrie.proof(storage, key: Keccak256.hash(key.bigEndianBytes)).map { Hex.encode($0) },
            ]
        }
        return [
            "address": address.checksummed,
            "accountProof": accountProof.map { Hex.encode($0) },
            "balance": RPCFormat.quantity(account.balance),
            "nonce": RPCFormat.quantity(account.nonce),
            "codeHash": Hex.encode(account.codeHash),
            "storageHash": Hex.encode(account.storageRoot),
            "storageProof": storageProof,
        ]
    }
}
