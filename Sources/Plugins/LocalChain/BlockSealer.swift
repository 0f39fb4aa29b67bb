import ChainKit
import HubKernel
import Logging
import Metrics
import ServiceLifecycle

/// Seals blocks: every `seal_tick_ms` it looks for chains whose block interval has passed with
/// transactions pending, and seals one block for each.
///
/// A block is sealed in one unit of work (``PluginContext/write(_:)``): the execution's
/// ledger transfers (ids derived from the transaction hashes), the new ledger accounts, the block,
/// the transaction rows, the new state, the emptied pool entries and the events all commit
/// together, so the chain and the ledger cannot disagree, even across a crash. Finality is
/// instant: a sealed block is never replaced.
///
/// One chain never stops another, nor one transaction its chain: a transaction whose ledger mirror
/// is refused is dropped with its reason (``DroppedTransaction``) and the block sealed without it;
/// a chain that keeps failing for another reason is retried with a growing back-off and reported
/// by the rail's health (``SealerHealth``), with an event and a metric. Paused chains are not
/// sealed at all.
struct BlockSealer: Service {
    let context: PluginContext
    let configuration: LocalChainConfiguration
    let vault: ValidatorKeyVault
    let health: SealerHealth
    /// The lease that makes this instance the chain's sealer, when several share the database;
    /// every block's unit is fenced by it.
    var lease: Lease?
    /// Each chain's state trie at its head, so a block re-hashes only what it changed.
    let stateTries = StateTrieCache()

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: configuration.sealTick)
                do {
                    try await sealDue()
                } catch is CancellationError {
                    return
                } catch {
                    context.logger.info("sealing local chain blocks failed; retrying next tick", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Seals one block on every chain that is due (and not backing off); returns the blocks sealed.
    @discardableResult
    func sealDue() async throws -> [StoredBlock] {
        let nowMs = Int64(context.clock.now().nanoseconds / 1_000_000)
        let due = try await context.database.read { try LocalChainStore.dueChains(nowMs: nowMs, on: $0) }
        var sealed: [StoredBlock] = []
        for chainID in due where health.mayTry(chainID, nowMs: nowMs) {
            do {
                if let block = try await seal(chainID: chainID) { sealed.append(block) }
                if health.succeeded(chainID) { try await report(LocalChainEvents.sealingRecovered, chainID: chainID, error: nil) }
            } catch is CancellationError {
                throw CancellationError()
            } catch let refusal as MirrorRefusal {
                try await drop(refusal, chainID: chainID)
            } catch {
                Counter(label: "hub_localchain_seal_failures_total", dimensions: [("chain_id", String(chainID))], factory: context.metrics)
                    .increment()
                let tickMs = Int64(configuration.sealTick / .milliseconds(1))
                context.logger.info("sealing a block failed; backing off", metadata: ["localchain.chain.id": "\(chainID)", "error": "\(error)"])
                if health.failed(chainID, error: "\(error)", nowMs: nowMs, tickMs: tickMs) {
                    try await report(LocalChainEvents.sealingDegraded, chainID: chainID, error: "\(error)")
                }
            }
        }
        return sealed
    }

    /// Takes the refused transactions out of the pool with their reason, in one transaction with
    /// their events; the next tick seals the rest.
    func drop(_ refusal: MirrorRefusal, chainID: UInt64) async throws {
        let (source, now) = (context.eventSource, context.clock.now())
        try await context.write { tx in
            let connection = tx.connection
            var events: [NewEvent] = []
            for hash in refusal.hashes {
                guard let entry = try LocalChainStore.poolEntry(chainID: chainID, hash: hash, on: connection) else { continue }
                let dropped = DroppedTransaction(entry: entry, reason: refusal.reason)
                try LocalChainStore.insert(dropped, chainID: chainID, atMs: Int64(now.nanoseconds / 1_000_000), on: connection)
                try LocalChainStore.removeFromPool([hash], chainID: chainID, on: connection)
                events.append(try LocalChainEvents.dropped(dropped, chainID: chainID, source: source, time: now))
            }
            try tx.append(events)
        }
        context.logger.info(
            "dropped transactions the ledger refused to mirror",
            metadata: ["localchain.chain.id": "\(chainID)", "count": "\(refusal.hashes.count)", "reason": "\(refusal.reason)"]
        )
    }

    /// Appends a health event of a chain (degraded, recovered).
    func report(_ type: String, chainID: UInt64, error: String?) async throws {
        let event = try LocalChainEvents.sealingHealth(type, chainID: chainID, error: error, source: context.eventSource, time: context.clock.now())
        try await context.write { try $0.append([event]) }
    }

    /// Seals the next block of `chainID` from its pool, or returns `nil` when nothing can go in.
    func seal(chainID: UInt64) async throws -> StoredBlock? {
        let (vault, limit, source, clock) = (vault, configuration.maxBlockTransactions, context.eventSource, context.clock)
        let assetOf = try await context.database.read { try LocalChainStore.chain(chainID, on: $0)?.asset }
        guard let assetCode = assetOf, let asset = try await context.ledger.asset(assetCode) else { return nil }
        let (lease, stateTries) = (self.lease, self.stateTries)
        let block = try await context.write { tx in
            if let lease { try tx.fence(lease) }
            return try Self.seal(
                chainID: chainID,
                asset: asset,
                limit: limit,
                vault: vault,
                source: source,
                now: clock.now(),
                stateTries: stateTries,
                in: tx
            )
        }
        return block
    }

    static func seal(
        chainID: UInt64,
        asset: Asset,
        limit: Int,
        vault: ValidatorKeyVault,
        source: String,
        now: LedgerTimestamp,
        stateTries: StateTrieCache,
        in tx: UnitOfWork
    ) throws -> StoredBlock? {
        let connection = tx.connection
        guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else { return nil }
        // Twice the block size: entries waiting for a nonce gap at the head of the pool leave room
        // for executable ones behind them.
        let pool = try LocalChainStore.pool(chainID: chainID, limit: limit * 2, on: connection)
        guard !pool.isEmpty else { return nil }
        let nowMs = max(Int64(now.nanoseconds / 1_000_000), chain.headTimeMs)
        let number = chain.headNumber + 1
        let parentHash = try Hex.decode(chain.headHash, length: 32)
        // The block reads the accounts it uses as it goes, not the chain's every account.
        let contracts = ContractReader(chainID: chainID, connection: connection, accounts: true)
        try contracts.preloadAccounts(Set(pool.flatMap { [$0.sender, $0.recipient] } + [chain.validator]), chainID: chainID, on: connection)
        let plan = BlockExecutor.plan(
            pool: pool,
            state: [:],
            contracts: contracts,
            chainID: chainID,
            validator: chain.validator,
            issuanceAccount: asset.issuanceAccountID,
            limit: limit,
            block: BlockExecutor.Block(
                number: number,
                timestamp: UInt64(nowMs / 1000),
                gasLimit: chain.blockGasLimit,
                parentHash: parentHash,
                recentHashes: try ContractStore.recentBlockHashes(chainID: chainID, before: number, on: connection)
            )
        )
        try contracts.check()
        guard !plan.included.isEmpty else { return nil }

        // The ledger side: accounts for new addresses, then the mirrored transfers. Any refusal
        // means the chain and the ledger disagree already; nothing is sealed and it is logged.
        let newAccounts = plan.created.filter { $0 != chain.validator }.map { address in
            NewAccount(
                id: LocalChainIDs.ledgerAccount(chainID: chainID, address: address),
                asset: asset.code,
                owner: .system("localchain:\(chainID):\(address)"),
                code: "localchain",
                flags: [.debitsMustNotExceedCredits],
                metadata: ["chain_id": String(chainID), "address": address.description],
                rail: LocalChainPlugin.id
            )
        }
        for result in try tx.createAccounts(newAccounts) where result.value == nil {
            throw LocalChainFailure("creating a ledger account for chain \(chainID) failed: \(String(describing: result))")
        }
        let mirrors = BlockExecutor.ledgerTransfers(plan, asset: asset.code, chainID: chainID)
        let refused = zip(mirrors, try tx.submit(mirrors)).compactMap { request, result -> (hash: String, error: TransferError)? in
            guard case .failed(let error) = result, let hash = request.reference?.id else { return nil }
            return (hash, error)
        }
        if let first = refused.first {
            // Throwing rolls the whole block back; the sealer drops these and seals the rest.
            var seen = Set<String>()
            let hashes = refused.map(\.hash).filter { seen.insert($0).inserted }
            throw MirrorRefusal(hashes: hashes, reason: "the ledger refused to mirror it: \(first.error.code): \(first.error.message)")
        }

        // Cash-outs: a sealed burn releases its payout; a failed one gives the held money back.
        let burns = plan.included.filter { $0.entry.recipient == chain.validator && $0.entry.sender != chain.validator }
        let cashOuts = try LocalChainStore.cashOuts(chainID: chainID, hashes: burns.map(\.entry.hash), on: connection)
        let statusByHash = Dictionary(uniqueKeysWithValues: burns.map { ($0.entry.hash, $0.status) })
        var resolutions: [TransferRequest] = []
        for cashOut in cashOuts where cashOut.state == "pending" {
            let succeeded = statusByHash[cashOut.hash] == 1
            resolutions.append(
                TransferRequest(
                    id: LocalChainIDs.cashOutResolution(transactionHash: try Hex.decode(cashOut.hash, length: 32)),
                    action: succeeded ? .postPending(pendingID: cashOut.holdID, amount: nil) : .voidPending(pendingID: cashOut.holdID),
                    reference: TransferReference(rail: "localchain", type: "cashout", id: cashOut.hash)
                )
            )
            try LocalChainStore.setCashOutState(succeeded ? "paid" : "voided", hash: cashOut.hash, chainID: chainID, on: connection)
        }
        let unresolved = zip(resolutions, try tx.submit(resolutions)).compactMap { request, result -> (hash: String, error: TransferError)? in
            guard case .failed(let error) = result, let hash = request.reference?.id else { return nil }
            return (hash, error)
        }
        if let first = unresolved.first {
            throw MirrorRefusal(
                hashes: unresolved.map(\.hash),
                reason: "its cash-out hold could not be resolved: \(first.error.code): \(first.error.message)"
            )
        }

        // The block.
        let raws = plan.included.map(\.entry.raw)
        let receipts = plan.included.map(\.receipt)
        let (stateRoot, trie) = try chain.stateRoot.root(
            after: plan,
            updating: stateTries.trie(chainID: chainID, head: chain.headHash),
            stored: { try LocalChainStore.accounts(chainID: chainID, on: connection) }
        )
        let header = LocalChainHeader(
            parentHash: parentHash,
            number: number,
            timestamp: UInt64(nowMs / 1000),
            transactionsRoot: LocalChainRoots.transactions(raws),
            stateRoot: stateRoot,
            receiptsRoot: LocalChainRoots.receipts(receipts),
            validator: chain.validator,
            chainID: chainID,
            extraData: []
        )
        let key = try vault.open(chain.sealedKey, chainID: chainID)
        let block = LocalChainBlock(header: try header.sealed(privateKey: key), transactions: raws, receipts: receipts)
        let stored = StoredBlock(
            number: number,
            hash: Hex.encode(block.hash),
            parentHash: chain.headHash,
            timestamp: header.timestamp,
            transactionCount: raws.count,
            data: Zstd.compress(block.encoded)
        )
        let transactions = plan.included.enumerated().map { position, included in
            ChainTransaction(
                hash: included.entry.hash,
                blockNumber: number,
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
        try LogStore.insert(receipts, blockNumber: number, chainID: chainID, on: connection)
        try LocalChainStore.upsert(plan.touched.map { plan.state[$0]! }, chainID: chainID, on: connection)
        try ContractStore.write(plan.contracts, chainID: chainID, on: connection)
        try LocalChainStore.removeFromPool(plan.included.map(\.entry.hash), chainID: chainID, on: connection)
        try LocalChainStore.setHead(chainID: chainID, number: number, hash: stored.hash, timeMs: nowMs, on: connection)
        if let trie { stateTries.keep(trie, chainID: chainID, head: stored.hash) }
        var events = [try LocalChainEvents.blockSealed(stored, block, chainID: chainID, source: source, time: now)]
        for transaction in transactions { events.append(try LocalChainEvents.sealed(transaction, chainID: chainID, source: source, time: now)) }
        try tx.append(events)
        return stored
    }
}
