import ChainKit
import HubKernel

/// Takes a block received from an upstream hub into a relayed chain, after verifying everything
/// it claims. LokaalPay's peers checked a hash over a few header fields and an unsigned `miner`
/// string; here a relay refuses a block unless it links to the stored head (number and parent
/// hash), is signed by the validator the genesis names, matches its transactions and receipts
/// roots, and replaying its transactions on the relay's own state gives exactly its receipts and
/// its state root. A block already stored is recognised by hash and skipped (deduplication); a
/// different block at a stored height is refused (instant finality: no reorganisations).
enum BlockImporter {
    enum Outcome: Sendable, Equatable {
        case stored(UInt64)
        case duplicate(UInt64)
    }

    struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func importBlock(
        _ block: LocalChainBlock,
        chainID: UInt64,
        upstream: String,
        expectedGenesis: String? = nil,
        source: String,
        now: LedgerTimestamp,
        stateTries: StateTrieCache? = nil,
        in unit: UnitOfWork
    ) throws -> Outcome {
        let connection = unit.connection
        let header = block.header.header
        guard header.chainID == chainID else { throw Rejection("the block is for chain \(header.chainID), not \(chainID)") }
        let hash = Hex.encode(block.hash)
        guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
            guard header.number == 0 else { throw Rejection("block \(header.number) arrived before the genesis") }
            if let expectedGenesis, expectedGenesis != hash {
                throw Rejection("the genesis \(hash) is not the one configured (\(expectedGenesis))")
            }
            try importGenesis(block, chainID: chainID, upstream: upstream, source: source, now: now, in: unit)
            return .stored(0)
        }
        guard chain.upstream != nil else { throw Rejection("chain \(chainID) is validated by this hub; it takes no blocks from elsewhere") }
        if header.number <= chain.headNumber {
            let stored = try LocalChainStore.block(chainID: chainID, number: header.number, on: connection)
            guard stored?.hash == hash else { throw Rejection("block \(header.number) differs from the one stored (no reorganisations)") }
            return .duplicate(header.number)
        }
        guard header.number == chain.headNumber + 1 else {
            throw Rejection("block \(header.number) does not follow the head \(chain.headNumber)")
        }
        guard Hex.encode(header.parentHash) == chain.headHash else { throw Rejection("block \(header.number) does not link to the head's hash") }
        guard header.validator == chain.validator else { throw Rejection("block \(header.number) names another validator") }
        guard Int64(clamping: header.timestamp) * 1000 >= chain.headTimeMs else { throw Rejection("block \(header.number) is older than its parent") }
        do {
            try block.verifyContents(validator: chain.validator)
        } catch {
            throw Rejection("block \(header.number): \(error)")
        }

        // Replay on this relay's state: the receipts and the state root must come out the same.
        var entries: [PoolEntry] = []
        for (index, raw) in block.transactions.enumerated() {
            let tx: ValidatedTransaction
            do {
                tx = try ValidatedTransaction.validate(raw, chainID: chainID)
            } catch {
                throw Rejection("block \(header.number) holds an invalid transaction: \(error)")
            }
            entries.append(
                PoolEntry(seq: Int64(index), hash: tx.hashHex, sender: tx.sender, recipient: tx.recipient, nonce: tx.nonce, value: tx.value, raw: raw)
            )
        }
        // The block reads the accounts it uses as it goes, not the chain's every account.
        let contracts = ContractReader(chainID: chainID, connection: connection, accounts: true)
        try contracts.preloadAccounts(Set(entries.flatMap { [$0.sender, $0.recipient] } + [chain.validator]), chainID: chainID, on: connection)
        let plan = BlockExecutor.plan(
            pool: entries,
            state: [:],
            contracts: contracts,
            chainID: chainID,
            validator: chain.validator,
            issuanceAccount: LocalChainIDs.ledgerAccount(chainID: chainID, address: chain.validator),
            limit: entries.count,
            block: BlockExecutor.Block(
                number: header.number,
                timestamp: header.timestamp,
                gasLimit: chain.blockGasLimit,
                parentHash: header.parentHash,
                recentHashes: try ContractStore.recentBlockHashes(chainID: chainID, before: header.number, on: connection)
            )
        )
        try contracts.check()
        guard plan.included.map(\.entry.hash) == entries.map(\.hash) else {
            throw Rejection("block \(header.number) holds transactions out of nonce order or beyond its gas limit")
        }
        // Blocks sealed before contracts ran have status-only receipts: those compare by status.
        let replayed = zip(plan.included.map(\.receipt), block.receipts).map { replayed, stored in
            stored.gasUsed == nil ? LocalChainReceipt(transactionHash: replayed.transactionHash, status: replayed.status) : replayed
        }
        guard replayed == block.receipts else {
            throw Rejection("block \(header.number)'s receipts differ from executing its transactions")
        }
        let (root, trie) = try chain.stateRoot.root(
            after: plan,
            updating: stateTries?.trie(chainID: chainID, head: chain.headHash),
            stored: { try LocalChainStore.accounts(chainID: chainID, on: connection) }
        )
        guard root == header.stateRoot else { throw Rejection("block \(header.number)'s state root differs from executing it") }

        let stored = StoredBlock(
            number: header.number,
            hash: hash,
            parentHash: chain.headHash,
            timestamp: header.timestamp,
            transactionCount: block.transactions.count,
            data: Zstd.compress(block.encoded)
        )
        let transactions = plan.included.enumerated().map { position, included in
            ChainTransaction(
                hash: included.entry.hash,
                blockNumber: header.number,
                position: position,
                sender: included.entry.sender,
                recipient: included.entry.recipient,
                nonce: included.entry.nonce,
                value: included.entry.value,
                status: included.status,
                raw: included.entry.raw
            )
        }
        try LocalChainStore.insert(stored, chainID: chainID, on: connection)
        try LocalChainStore.insert(transactions, chainID: chainID, on: connection)
        try LogStore.insert(block.receipts, blockNumber: header.number, chainID: chainID, on: connection)
        try LocalChainStore.upsert(plan.touched.map { plan.state[$0]! }, chainID: chainID, on: connection)
        try ContractStore.write(plan.contracts, chainID: chainID, on: connection)
        try LocalChainStore.setHead(
            chainID: chainID,
            number: header.number,
            hash: hash,
            timeMs: Int64(clamping: header.timestamp) * 1000,
            on: connection
        )
        if let trie { stateTries?.keep(trie, chainID: chainID, head: hash) }
        var events = [try LocalChainEvents.blockSealed(stored, block, chainID: chainID, source: source, time: now)]
        for transaction in transactions { events.append(try LocalChainEvents.sealed(transaction, chainID: chainID, source: source, time: now)) }
        try unit.append(events)
        return .stored(header.number)
    }

    /// The genesis names the validator and records the event; it must be self-consistent and
    /// signed by the validator it names.
    static func importGenesis(_ block: LocalChainBlock, chainID: UInt64, upstream: String, source: String, now: LedgerTimestamp, in unit: UnitOfWork)
        throws
    {
        let connection = unit.connection
        let header = block.header.header
        guard header.parentHash == [UInt8](repeating: 0, count: 32), block.transactions.isEmpty,
            let stateRoot = StateRootKind(genesisRoot: header.stateRoot)
        else { throw Rejection("the genesis must have no parent, no transactions and an empty state") }
        do {
            try block.verifyContents(validator: header.validator)
        } catch {
            throw Rejection("the genesis: \(error)")
        }
        let fields: [RLPItem]
        do {
            fields = try RLP.decode(block.genesisRecord ?? []).list("the genesis record")
        } catch {
            throw Rejection("the genesis does not record an event")
        }
        guard fields.count == 8 || fields.count == 9, (try? fields[0].bytes("tag")) == Array("hubd-localchain/1".utf8) else {
            throw Rejection("the genesis does not record an event")
        }
        func text(_ index: Int) throws -> String { String(decoding: try fields[index].bytes("field"), as: UTF8.self) }
        let latitude = try text(5)
        let longitude = try text(6)
        let radius = try fields[7].uint64("radius")
        let hash = Hex.encode(block.hash)
        let chain = LocalChain(
            chainID: chainID,
            name: try text(1),
            currencyName: try text(2),
            symbol: try text(3),
            decimals: UInt8(clamping: try fields[4].uint64("decimals")),
            asset: LocalChainIDs.assetCode(chainID: chainID),
            blockIntervalMs: 0,
            host: latitude.isEmpty ? nil : HostLocation(latitude: latitude, longitude: longitude, radiusMeters: Int64(clamping: radius)),
            status: .active,
            organiserID: "upstream",
            validator: header.validator,
            sealedKey: [],
            genesisHash: hash,
            headNumber: 0,
            headHash: hash,
            headTimeMs: Int64(clamping: header.timestamp) * 1000,
            createdAt: Int64(bitPattern: now.nanoseconds),
            upstream: upstream,
            // Genesis records before contracts ran have 8 fields: those chains had the default.
            blockGasLimit: fields.count == 9 ? try fields[8].uint64("block gas limit") : LocalChainConfiguration.defaultBlockGasLimit,
            stateRoot: stateRoot
        )
        try LocalChainStore.insert(chain, on: connection)
        try LocalChainStore.insert(
            StoredBlock(
                number: 0,
                hash: hash,
                parentHash: Hex.encode(header.parentHash),
                timestamp: header.timestamp,
                transactionCount: 0,
                data: Zstd.compress(block.encoded)
            ),
            chainID: chainID,
            on: connection
        )
        try unit.append([LocalChainEvents.created(chain, source: source, time: now)])
    }
}
