import ChainKit
import Testing

@Suite("Local chain formats: Merkle roots, headers, blocks")
struct LocalChainFormatTests {
    static let key = [UInt8](repeating: 0x46, count: 32)
    static let otherKey = [UInt8](repeating: 0x47, count: 32)

    @Test("the Merkle root is domain-separated, order-sensitive and does not duplicate an odd node")
    func merkle() {
        let a: [UInt8] = [1], b: [UInt8] = [2], c: [UInt8] = [3]
        #expect(KeccakMerkle.root([]) == Keccak256.hash([UInt8]()))
        #expect(KeccakMerkle.root([a]) == Keccak256.hash([0x00, 1]))
        let ab = KeccakMerkle.nodeHash(KeccakMerkle.leafHash(a), KeccakMerkle.leafHash(b))
        #expect(KeccakMerkle.root([a, b]) == ab)
        // Three leaves: the third moves up unchanged.
        #expect(KeccakMerkle.root([a, b, c]) == KeccakMerkle.nodeHash(ab, KeccakMerkle.leafHash(c)))
        #expect(KeccakMerkle.root([a, b, c]) != KeccakMerkle.root([a, b, c, c]))
        #expect(KeccakMerkle.root([a, b]) != KeccakMerkle.root([b, a]))
        // A leaf equal to an inner node's preimage does not give the same root.
        #expect(KeccakMerkle.root([KeccakMerkle.leafHash(a) + KeccakMerkle.leafHash(b)]) != ab)
    }

    @Test("the state root ignores order and empty accounts but commits to every nonce and balance")
    func stateRoot() throws {
        let x = try EthereumAddress(bytes: [UInt8](repeating: 1, count: 20))
        let y = try EthereumAddress(bytes: [UInt8](repeating: 2, count: 20))
        let z = try EthereumAddress(bytes: [UInt8](repeating: 3, count: 20))
        let state = [LocalChainAccountState(address: y, nonce: 1, balance: 5), LocalChainAccountState(address: x, nonce: 0, balance: 7)]
        let root = LocalChainRoots.state(state)
        #expect(root == LocalChainRoots.state(state.reversed()))
        #expect(root == LocalChainRoots.state(state + [LocalChainAccountState(address: z, nonce: 0, balance: 0)]))
        #expect(root != LocalChainRoots.state([state[0], LocalChainAccountState(address: x, nonce: 0, balance: 8)]))
        #expect(root != LocalChainRoots.state([LocalChainAccountState(address: y, nonce: 2, balance: 5), state[1]]))
        // The leaf is RLP([address, nonce, balance]).
        #expect(state[1].leaf == [0xd7, 0x94] + x.bytes + [0x80, 0x07])
    }

    func sampleBlock(key: [UInt8] = LocalChainFormatTests.key) throws -> LocalChainBlock {
        let validator = try EthereumAddress(publicKey: try Secp256k1.publicKey(privateKey: Self.key))
        let tx = try EthereumTransaction(envelope: .legacy, chainID: 4242, nonce: 0, gasLimit: 21_000, to: validator, value: UInt256(9))
            .signed(privateKey: Self.otherKey)
        let receipts = [LocalChainReceipt(transactionHash: tx.hash, status: 1)]
        let header = LocalChainHeader(
            parentHash: [UInt8](repeating: 0xAB, count: 32),
            number: 7,
            timestamp: 1_800_000_000,
            transactionsRoot: LocalChainRoots.transactions([tx.raw]),
            stateRoot: LocalChainRoots.state([]),
            receiptsRoot: LocalChainRoots.receipts(receipts),
            validator: validator,
            chainID: 4242,
            extraData: [1, 2, 3]
        )
        return LocalChainBlock(header: try header.sealed(privateKey: key), transactions: [tx.raw], receipts: receipts)
    }

    @Test("a block round-trips through RLP and verifies against its validator")
    func blockRoundTrip() throws {
        let block = try sampleBlock()
        let decoded = try LocalChainBlock.decode(block.encoded)
        #expect(decoded == block)
        #expect(decoded.hash == block.header.header.hash)
        try decoded.verifyContents(validator: block.header.header.validator)
        #expect(try decoded.header.signer() == block.header.header.validator)
    }

    @Test("a block signed by another key, or with a changed transaction, root or receipt, is refused")
    func forgedBlocks() throws {
        let honest = try sampleBlock()
        let validator = honest.header.header.validator
        let forged = try sampleBlock(key: Self.otherKey)
        #expect(throws: ChainKitError.self) { try forged.verifyContents(validator: validator) }

        var swapped = honest
        swapped.transactions = [honest.transactions[0] + [0]]
        #expect(throws: ChainKitError.self) { try swapped.verifyContents(validator: validator) }

        var failedReceipt = honest
        failedReceipt.receipts[0].status = 0
        #expect(throws: ChainKitError.self) { try failedReceipt.verifyContents(validator: validator) }

        // Changing a header field changes the hash, so the old signature names someone else.
        var moved = honest
        moved.header.header.stateRoot = [UInt8](repeating: 9, count: 32)
        #expect(throws: ChainKitError.self) { try moved.verifyContents(validator: validator) }
    }

    @Test("a genesis carries its record; extraData holds its keccak-256; a changed record is refused")
    func genesisRecord() throws {
        let validator = try EthereumAddress(publicKey: try Secp256k1.publicKey(privateKey: Self.key))
        let record = RLP.encode(.list([.bytes(Array("hubd-localchain/1".utf8)), .bytes(Array("An event with a long name".utf8))]))
        let header = LocalChainHeader(
            parentHash: [UInt8](repeating: 0, count: 32),
            number: 0,
            timestamp: 1,
            transactionsRoot: LocalChainRoots.transactions([]),
            stateRoot: LocalChainRoots.state([]),
            receiptsRoot: LocalChainRoots.receipts([]),
            validator: validator,
            chainID: 9,
            extraData: Keccak256.hash(record)
        )
        let genesis = LocalChainBlock(header: try header.sealed(privateKey: Self.key), transactions: [], receipts: [], genesisRecord: record)
        let decoded = try LocalChainBlock.decode(genesis.encoded)
        #expect(decoded.genesisRecord == record)
        try decoded.verifyContents(validator: validator)
        var changed = decoded
        changed.genesisRecord = record + [0]
        #expect(throws: ChainKitError.self) { try changed.verifyContents(validator: validator) }
        // Only a genesis may carry a record.
        var late = try sampleBlock()
        late.genesisRecord = record
        #expect(throws: ChainKitError.self) { try LocalChainBlock.decode(late.encoded) }
    }

    @Test("garbage, truncated and wrongly shaped blocks do not decode")
    func garbage() throws {
        let encoded = try sampleBlock().encoded
        #expect(throws: ChainKitError.self) { try LocalChainBlock.decode([0xC0]) }
        #expect(throws: ChainKitError.self) { try LocalChainBlock.decode(Array(encoded.dropLast())) }
        #expect(throws: ChainKitError.self) { try LocalChainBlock.decode([0xFF, 0x00]) }
    }
}
