import ChainKit
import HubKernel

/// Creating chains (validator key and genesis), grants and status changes: the rail's writes
/// that are not raw transactions.
struct ChainService: Sendable {
    let context: PluginContext
    let configuration: LocalChainConfiguration
    let vault: ValidatorKeyVault

    struct NewChain: Sendable {
        var chainID: UInt64
        var name: String
        var currencyName: String
        var symbol: String
        var decimals: UInt8
        var blockIntervalMs: Int64
        var host: HostLocation?
        var organiserID: String
        var blockGasLimit: UInt64 = LocalChainConfiguration.defaultBlockGasLimit
    }

    /// Creates the chain's asset, validator key and genesis block.
    func create(_ new: NewChain) async throws -> LocalChain {
        let assetCode = LocalChainIDs.assetCode(chainID: new.chainID)
        if try await context.database.read({ try LocalChainStore.chain(new.chainID, on: $0) }) != nil {
            throw ChainServiceError.chainIDTaken(new.chainID)
        }
        // The asset first, in its own transaction: creating it again with the same fields answers
        // `exists`, so a crash before the chain row only leaves an asset the retry reuses.
        let asset: Asset
        switch try await context.ledger.createAsset(
            NewAsset(code: assetCode, scale: new.decimals, name: new.currencyName, organiserID: new.organiserID, rail: LocalChainPlugin.id)
        ) {
        case .created(let created), .exists(let created): asset = created
        case .failed(let error): throw ChainServiceError.assetConflict(error.message)
        }

        let key = ValidatorKeyVault.randomPrivateKey { (try? Secp256k1.publicKey(privateKey: $0)) != nil }
        let validator = try EthereumAddress(publicKey: try Secp256k1.publicKey(privateKey: key))
        let sealedKey = try vault.seal(key, chainID: new.chainID)
        let now = context.clock.now()
        let nowMs = Int64(now.nanoseconds / 1_000_000)
        let genesisHeader = LocalChainHeader(
            parentHash: [UInt8](repeating: 0, count: 32),
            number: 0,
            timestamp: UInt64(nowMs / 1000),
            transactionsRoot: LocalChainRoots.transactions([]),
            stateRoot: StateRootKind.ethereum.emptyRoot,
            receiptsRoot: LocalChainRoots.receipts([]),
            validator: validator,
            chainID: new.chainID,
            extraData: Keccak256.hash(Self.genesisRecord(new))
        )
        let genesis = LocalChainBlock(
            header: try genesisHeader.sealed(privateKey: key),
            transactions: [],
            receipts: [],
            genesisRecord: Self.genesisRecord(new)
        )
        let stored = StoredBlock(
            number: 0,
            hash: Hex.encode(genesis.hash),
            parentHash: Hex.encode(genesisHeader.parentHash),
            timestamp: genesisHeader.timestamp,
            transactionCount: 0,
            data: Zstd.compress(genesis.encoded)
        )
        let chain = LocalChain(
            chainID: new.chainID,
            name: new.name,
            currencyName: new.currencyName,
            symbol: new.symbol,
            decimals: new.decimals,
            asset: asset.code,
            blockIntervalMs: new.blockIntervalMs,
            host: new.host,
            status: .active,
            organiserID: new.organiserID,
            validator: validator,
            sealedKey: sealedKey,
            genesisHash: stored.hash,
            headNumber: 0,
            headHash: stored.hash,
            headTimeMs: nowMs,
            createdAt: Int64(bitPattern: now.nanoseconds),
            blockGasLimit: new.blockGasLimit
        )
        let source = context.eventSource
        let validatorAccount = ChainAccount(address: validator, nonce: 0, balance: 0, ledgerAccountID: asset.issuanceAccountID)
        try await context.write { tx in
            let connection = tx.connection
            if try LocalChainStore.chain(new.chainID, forUpdate: true, on: connection) != nil { throw ChainServiceError.chainIDTaken(new.chainID) }
            try LocalChainStore.insert(chain, on: connection)
            try LocalChainStore.insert(stored, chainID: chain.chainID, on: connection)
            try LocalChainStore.upsert([validatorAccount], chainID: chain.chainID, on: connection)
            try tx.append([LocalChainEvents.created(chain, source: source, time: now)])
        }
        return chain
    }

    /// Genesis records the event: `RLP(["hubd-localchain/1", name, currencyName, symbol, decimals,
    /// latitude, longitude, radiusMeters, blockGasLimit])` (empty strings when there is no host
    /// location; chains from before contracts ran have no gas limit field), carried
    /// in the genesis block and committed to by its header's `extraData` (keccak-256). The
    /// validator is the header's `validator` field, and the genesis is signed by it.
    static func genesisRecord(_ new: NewChain) -> [UInt8] {
        RLP.encode(
            .list([
                .bytes(Array("hubd-localchain/1".utf8)), .bytes(Array(new.name.utf8)), .bytes(Array(new.currencyName.utf8)),
                .bytes(Array(new.symbol.utf8)), .uint(UInt64(new.decimals)), .bytes(Array((new.host?.latitude ?? "").utf8)),
                .bytes(Array((new.host?.longitude ?? "").utf8)), .uint(UInt64(max(0, new.host?.radiusMeters ?? 0))),
                .uint(new.blockGasLimit),
            ])
        )
    }

    /// A grant: a transfer from the validator (which issues the chain's currency) to `to`, signed
    /// with the validator's key as a standard EIP-155 transaction and queued like any other, so it
    /// is sealed in the next block and mirrored in the ledger (issuance → the address).
    /// With a request `id`, a retry with the same fields answers the first grant (`known`) and one
    /// with other fields is refused (``ChainServiceError/requestIDReused(field:)``).
    func grant(chainID: UInt64, to: EthereumAddress, amount: UInt128, requestID: String? = nil) async throws -> TransactionIntake.Outcome {
        let (vault, configuration, source) = (vault, configuration, context.eventSource)
        let fields = ["to": to.description, "amount": String(amount)]
        let outcome = try await context.write { tx -> TransactionIntake.Outcome in
            let connection = tx.connection
            guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
                throw TransactionRejection.chainNotFound(chainID)
            }
            if let requestID, let prior = try LocalChainStore.request(.grant, id: requestID, chainID: chainID, on: connection) {
                if let field = prior.firstDifference(from: fields) { throw ChainServiceError.requestIDReused(field: field) }
                return .known(prior.hash)
            }
            let outcome = try Self.queueValidatorTransfer(
                chain,
                to: to,
                amount: amount,
                vault: vault,
                configuration: configuration,
                source: source,
                in: tx
            )
            if let requestID {
                try LocalChainStore.insert(
                    ChainRequest(kind: .grant, id: requestID, fields: fields, hash: outcome.hash),
                    chainID: chainID,
                    on: connection
                )
            }
            return outcome
        }
        return outcome
    }

    /// Pauses, resumes or closes a chain. Closed is final.
    func setStatus(_ status: LocalChain.Status, chainID: UInt64) async throws -> LocalChain {
        let (source, now) = (context.eventSource, context.clock.now())
        let chain = try await context.write { tx -> LocalChain in
            let connection = tx.connection
            guard var chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
                throw TransactionRejection.chainNotFound(chainID)
            }
            if chain.status == status { return chain }
            // A management call against the chain's state: a conflict (a transaction sent to a
            // closed chain is refused by the intake instead).
            guard chain.status != .closed else {
                throw TransactionRejection("chain_closed", "chain \(chainID) is closed for good", kind: .conflict)
            }
            chain.status = status
            try LocalChainStore.setStatus(status, chainID: chainID, on: connection)
            try tx.append([LocalChainEvents.statusChanged(chain, source: source, time: now)])
            return chain
        }
        return chain
    }
}
