import ChainKit
import HubKernel
import Logging
import ServiceLifecycle

/// Seals blocks: every `seal_tick_ms` it looks for chains whose block interval has passed with
/// transactions pending, and seals one block for each.
///
/// A block is sealed in one ledger transaction (``Ledger/transaction(_:)``): the execution's
/// ledger transfers (ids derived from the transaction hashes), the new ledger accounts, the block,
/// the transaction rows, the new state, the emptied pool entries and the events all commit
/// together, so the chain and the ledger cannot disagree, even across a crash. Finality is
/// instant: a sealed block is never replaced.
struct BlockSealer: Service {
    let context: PluginContext
    let configuration: LocalChainConfiguration
    let vault: ValidatorKeyVault

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

    /// Seals one block on every chain that is due; returns the blocks sealed.
    @discardableResult
    func sealDue() async throws -> [StoredBlock] {
        let nowMs = Int64(context.clock.now().nanoseconds / 1_000_000)
        let due = try await context.database.read { try LocalChainStore.dueChains(nowMs: nowMs, on: $0) }
        var sealed: [StoredBlock] = []
        for chainID in due {
            if let block = try await seal(chainID: chainID) { sealed.append(block) }
        }
        return sealed
    }

    /// Seals the next block of `chainID` from its pool, or returns `nil` when nothing can go in.
    func seal(chainID: UInt64) async throws -> StoredBlock? {
        let (vault, limit, source, clock) = (vault, configuration.maxBlockTransactions, context.eventSource, context.clock)
        let assetOf = try await context.database.read { try LocalChainStore.chain(chainID, on: $0)?.asset }
        guard let assetCode = assetOf, let asset = try await context.ledger.asset(assetCode) else { return nil }
        let block = try await context.ledger.transaction { tx in
            try Self.seal(chainID: chainID, asset: asset, limit: limit, vault: vault, source: source, now: clock.now(), in: tx)
        }
        if block != nil { context.events.nudge() }
        return block
    }

    static func seal(
        chainID: UInt64,
        asset: Asset,
        limit: Int,
        vault: ValidatorKeyVault,
        source: String,
        now: LedgerTimestamp,
        in tx: LedgerTransaction
    ) throws -> StoredBlock? {
        let connection = tx.connection
        guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else { return nil }
        // Twice the block size: entries waiting for a nonce gap at the head of the pool leave room
        // for executable ones behind them.
        let pool = try LocalChainStore.pool(chainID: chainID, limit: limit * 2, on: connection)
        guard !pool.isEmpty else { return nil }
        var state: [EthereumAddress: ChainAccount] = [:]
        for account in try LocalChainStore.accounts(chainID: chainID, on: connection) { state[account.address] = account }
        let plan = BlockExecutor.plan(
            pool: pool,
            state: state,
            chainID: chainID,
            validator: chain.validator,
            issuanceAccount: asset.issuanceAccountID,
            limit: limit
        )
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
        for result in try tx.submit(BlockExecutor.ledgerTransfers(plan, asset: asset.code, chainID: chainID)) {
            guard case .created = result else {
                throw LocalChainFailure("the ledger refused a transfer mirroring chain \(chainID): \(String(describing: result))")
            }
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
        for result in try tx.submit(resolutions) {
            guard case .created = result else {
                throw LocalChainFailure("the ledger refused to resolve a cash-out hold on chain \(chainID): \(String(describing: result))")
            }
        }

        // The block.
        let nowMs = max(Int64(now.nanoseconds / 1_000_000), chain.headTimeMs)
        let number = chain.headNumber + 1
        let raws = plan.included.map(\.entry.raw)
        let receipts = plan.included.map { LocalChainReceipt(transactionHash: try! Hex.decode($0.entry.hash), status: $0.status) }
        let stateRoot = LocalChainRoots.state(plan.state.values.map { LocalChainAccountState(address: $0.address, nonce: $0.nonce, balance: $0.balance) })
        let header = LocalChainHeader(
            parentHash: try Hex.decode(chain.headHash, length: 32),
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
        try LocalChainStore.upsert(plan.touched.map { plan.state[$0]! }, chainID: chainID, on: connection)
        try LocalChainStore.removeFromPool(plan.included.map(\.entry.hash), chainID: chainID, on: connection)
        try LocalChainStore.setHead(chainID: chainID, number: number, hash: stored.hash, timeMs: nowMs, on: connection)
        var events = [try LocalChainEvents.blockSealed(stored, block, chainID: chainID, source: source, time: now)]
        for transaction in transactions { events.append(try LocalChainEvents.sealed(transaction, chainID: chainID, source: source, time: now)) }
        try EventLog.append(events, on: connection)
        return stored
    }
}
