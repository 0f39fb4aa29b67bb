import ChainKit
import HubKernel
import Logging

/// Anchors the offline registry's DID changes on the configured peaq node, one at a time in the
/// order they were made, on one instance (the holder of the rail's `anchor` lease, its writes
/// fenced by it).
///
/// For each change (``DIDAnchors``):
/// 1. The hub signs the change's call again for the node with the signer's custodial key: the
///    node's genesis and runtime version, the signer's nonce there (`system_accountNextIndex`)
///    and a mortal era from the last finalized block (rails.md §4.2). The signed bytes are stored
///    (`submitted`) **before** they are sent.
/// 2. `author_submitAndWatchExtrinsic`, until `inBlock` (`in_block`, with the block).
/// 3. Once that block is finalized and still the chain's, the attribute is read from chain
///    storage at that block (`state_getStorage`): `finalized` when it is what the change made it,
///    `failed` otherwise (the pallet refused the call on chain, for instance an attribute someone
///    else added first). Each ends with `substrate.did.anchored` or `substrate.did.anchor_failed`.
///
/// Nothing is sent twice: after a drop, a crash or a restart, a `submitted` change is sent again
/// as the same bytes (the node answers it is already there or outdated); it is looked for in the
/// blocks of its era, and signed again only when it can no longer be included (its era ended,
/// or its nonce was used by another extrinsic of the signer), so at most one signing lands.
struct DIDAnchorer: Sendable {
    /// Signings after which a change that keeps being refused is given up (`failed`).
    static let maximumSignings = 5

    let context: PluginContext
    let node: SubstrateConfiguration.Node
    let secrets: WalletSecrets
    let ss58Prefix: UInt16
    /// The offline registry's chain: reads the stored proofs back.
    let offlineChain: DIDChain
    var lease: Lease?

    private var logger: Logger { context.logger }

    /// Runs until cancelled: connects, anchors, reconnects after ``SubstrateConfiguration/Node/retryDelay``.
    func run() async throws {
        // Changes recorded before a node was configured are anchored too, oldest first.
        let queued = try await write { unit in try DIDAnchors.enqueueUnanchored(in: unit) }
        if queued > 0 { logger.info("queued \(queued) earlier DID changes for anchoring") }
        // The same failure again (a node that stays down) is logged once, then at debug level.
        var lastFailure: String?
        while !Task.isCancelled {
            do {
                try await NodeConnection.connect(url: node.url, logger: logger) { connection in
                    try await self.session(SubstrateNode(connection: connection))
                }
            } catch is CancellationError {
                return
            } catch let error as LeaseLost {
                throw error
            } catch {
                let failure = "\(error)"
                logger.log(
                    level: failure == lastFailure ? .debug : .warning,
                    "peaq node \(node.url): \(failure); connecting again every \(node.retryDelay)",
                    metadata: ["substrate.node": "\(node.url)"]
                )
                lastFailure = failure
            }
            try await Task.sleep(for: node.retryDelay)
        }
    }

    /// One connection's work: learn the chain, then anchor until the connection drops.
    func session(_ node: SubstrateNode) async throws {
        var target = try await NodeTarget.load(node)
        logger.info(
            "anchoring DID changes on \(self.node.url)",
            metadata: ["substrate.genesis": "0x\(HexText.encode(target.chain.genesisHash))", "substrate.spec": "\(target.chain.version.specVersion)"]
        )
        while true {
            try Task.checkCancellation()
            try await settleIncluded(node, target)
            let moved: Bool
            do {
                moved = try await anchorNext(node, target)
            } catch NodeTarget.Upgraded.runtime {
                target = try await NodeTarget.load(node)
                continue
            }
            if !moved { try await Task.sleep(for: self.node.pollInterval) }
        }
    }

    // MARK: Sending

    /// Moves the oldest unsettled change on: a `submitted` one first (sent again as it was
    /// signed), then a `pending` one. Returns whether anything changed.
    func anchorNext(_ node: SubstrateNode, _ target: NodeTarget) async throws -> Bool {
        if let submitted = try await read({ try DIDAnchors.oldest(.submitted, on: $0) }) {
            return try await send(submitted, node, target)
        }
        guard let pending = try await read({ try DIDAnchors.oldest(.pending, on: $0) }) else { return false }
        return try await sign(pending, node, target)
    }

    /// Signs `anchor`'s change for the node, stores it `submitted`, then sends it.
    func sign(_ anchor: DIDAnchor, _ node: SubstrateNode, _ target: NodeTarget) async throws -> Bool {
        guard anchor.signings < Self.maximumSignings else {
            try await fail(anchor, "signed \(anchor.signings) times and never included: \(anchor.error ?? "no reason given")")
            return true
        }
        let (secrets, prefix, offlineChain) = (secrets, ss58Prefix, offlineChain)
        guard let keyPair = try await read({ try CustodialKeys.keyPair(anchor.signer, secrets: secrets, ss58Prefix: prefix, on: $0) }) else {
            try await settle(anchor, .holderSignatureRequired, error: "the signer is an external wallet: the hub holds no key to sign for the node")
            return true
        }
        try await target.checkRuntime(node)
        let call = try DIDCall(offlineChain.verify(anchor.proof))
        let nonce = try await node.accountNextIndex(try SS58.encode(anchor.signer, prefix: ss58Prefix))
        let mortality = try await target.mortality(node)
        let (era, birth) = (mortality.era, mortality.birth)
        let extrinsic = try target.chain.sign(call, keyPair: keyPair, nonce: nonce, mortality: mortality.signing).bytes
        let signed = try await write { [lease] unit in
            if let lease { try unit.fence(lease) }
            let changed = try unit.connection.execute(
                """
                UPDATE substrate_did_anchors SET status = \(DIDAnchors.Status.submitted.rawValue), extrinsic = \(extrinsic), \
                extrinsic_hash = \(blake2b256(extrinsic)), nonce = \(Int64(nonce)), era_birth = \(Int64(birth)), \
                era_period = \(Int64(era.period ?? 0)), block_hash = NULL, block_number = NULL, signings = signings + 1, \
                updated_at = \(unit.now) WHERE proof_hash = \(anchor.proofHash) AND status = \(anchor.status.rawValue) \
                AND signings = \(anchor.signings)
                """
            )
            return changed == 1 ? try DIDAnchors.anchor(anchor.proofHash, on: unit.connection) : nil
        }
        guard let signed else { return true }
        logger.debug(
            "signed DID change for the node",
            metadata: ["substrate.proof": "0x\(HexText.encode(anchor.proofHash))", "substrate.nonce": "\(nonce)"]
        )
        return try await send(signed, node, target)
    }

    /// Sends a `submitted` change's stored bytes and waits for its block.
    func send(_ anchor: DIDAnchor, _ node: SubstrateNode, _ target: NodeTarget) async throws -> Bool {
        guard let extrinsic = anchor.extrinsic else { return try await sign(anchor, node, target) }
        let watch: (id: String, updates: AsyncStream<NodeJSON>)
        do {
            watch = try await node.submitAndWatch(extrinsic)
        } catch NodeRPCError.rpc(let code, let message, let data) {
            let reason = (data ?? message).lowercased()
            switch code {
            case 1013:
                // Already in the node's pool: it will be in a block (then sending it again says
                // outdated, and it is looked for) or dropped (then it is taken again) soon.
                return false
            case 1010 where reason.contains("outdated") || reason.contains("stale") || reason.contains("ancient"):
                // Its nonce was used (by this very extrinsic, perhaps) or its era ended.
                return try await lookForInclusion(anchor, node, target)
            case 1010 where reason.contains("future"):
                return false
            case 1010 where reason.contains("signature") || reason.contains("proof"):
                // Signed for a runtime the node no longer runs (signing checks that first and has
                // the target reloaded): these bytes can never be valid, so sign again.
                try await note(anchor, "the node refused the signature: \(data ?? message)")
                return try await sign(anchor, node, target)
            default:
                try await fail(anchor, "the node refused it: \(code) \(message)" + (data.map { " (\($0))" } ?? ""))
                return true
            }
        }
        let status = try await Self.firstSettlingStatus(watch.updates, timeout: self.node.inclusionTimeout)
        await node.unwatch(watch.id)
        switch status {
        case .inBlock(let hash), .finalized(let hash):
            try await included(anchor, block: hash, number: try await node.number(of: hash))
            return true
        case .dropped, .invalid, .usurped:
            return try await lookForInclusion(anchor, node, target)
        case nil:
            // Still waiting (or the watch ended with the connection): looked at again later.
            return false
        default:
            return false
        }
    }

    /// The first status that settles an extrinsic's fate, or nil when none came in `timeout` or
    /// the subscription ended.
    static func firstSettlingStatus(_ updates: AsyncStream<NodeJSON>, timeout: Duration) async throws -> TransactionStatus? {
        try await withThrowingTaskGroup(of: TransactionStatus?.self) { group in
            group.addTask {
                for await update in updates {
                    guard let status = TransactionStatus(update) else { continue }
                    switch status {
                    case .inBlock, .finalized, .dropped, .invalid, .usurped: return status
                    default: continue
                    }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// After the node said the extrinsic is no longer new: finds it in the blocks of its era. If
    /// it is not there and can no longer be included (era over, or its nonce taken by another of
    /// the signer's extrinsics), it is signed again; otherwise it is left to be sent again later.
    func lookForInclusion(_ anchor: DIDAnchor, _ node: SubstrateNode, _ target: NodeTarget) async throws -> Bool {
        guard let extrinsic = anchor.extrinsic, let birth = anchor.eraBirth, let period = anchor.eraPeriod, let nonce = anchor.nonce else {
            return try await sign(anchor, node, target)
        }
        let best = try await node.bestNumber()
        if best >= birth {
            for number in birth...min(best, birth + max(period, 1) - 1) {
                guard let hash = try await node.blockHash(number) else { break }
                if try await node.extrinsics(of: hash).contains(extrinsic) {
                    try await included(anchor, block: hash, number: number)
                    return true
                }
            }
        }
        let nextNonce = try await node.accountNextIndex(try SS58.encode(anchor.signer, prefix: ss58Prefix))
        guard anchor.eraEnded(by: best + 1) || nextNonce > nonce else { return false }
        return try await sign(anchor, node, target)
    }

    // MARK: Settling

    /// Checks the changes that are in a block, once that block is finalized: still on the chain
    /// (else sent again), and the attribute in storage there is what the change made it.
    func settleIncluded(_ node: SubstrateNode, _ target: NodeTarget) async throws {
        let included = try await read { try DIDAnchors.all(.inBlock, limit: 100, on: $0) }
        guard !included.isEmpty else { return }
        let finalized = try await node.finalizedHead()
        for anchor in included {
            guard let number = anchor.blockNumber, let hash = anchor.blockHash, number <= finalized.number else { continue }
            guard try await node.blockHash(number) == hash else {
                // Its block was retracted: send it again (or find it in the block that replaced it).
                try await settle(anchor, .submitted, error: "its block 0x\(HexText.encode(hash)) was retracted")
                continue
            }
            let proof = try offlineChain.verify(anchor.proof)
            let call = try DIDCall(proof)
            let key = try target.chain.metadata.storageKey(
                pallet: DIDChain.pallet,
                item: "AttributeStore",
                keys: [blake2b256(call.didAccount + call.name)]
            )
            let stored = try await node.storage(key, at: hash)
            if let problem = try Self.mismatch(call, stored: stored, metadata: target.chain.metadata) {
                try await fail(anchor, "included in block \(number), but on chain \(problem): the pallet refused the call there")
            } else {
                try await settle(anchor, .finalized, error: nil)
            }
        }
    }

    /// What is wrong with the chain's attribute after `call` ran, or nil when it is what the call made it.
    static func mismatch(_ call: DIDCall, stored: [UInt8]?, metadata: RuntimeMetadata) throws -> String? {
        switch call.kind {
        case .removeAttribute:
            return stored == nil ? nil : "the attribute is still there"
        case .addAttribute, .updateAttribute:
            guard let stored else { return "there is no such attribute" }
            let value = try metadata.decodeStorageValue(pallet: DIDChain.pallet, item: "AttributeStore", bytes: stored)
            guard value?["name"]?.byteArray == call.name else { return "the attribute has another name" }
            guard value?["value"]?.byteArray == (call.value ?? []) else { return "the attribute has another value" }
            return nil
        case .readAttribute:
            return nil
        }
    }

    func included(_ anchor: DIDAnchor, block hash: [UInt8], number: UInt64) async throws {
        try await write { [lease] unit in
            if let lease { try unit.fence(lease) }
            try unit.connection.execute(
                """
                UPDATE substrate_did_anchors SET status = \(DIDAnchors.Status.inBlock.rawValue), block_hash = \(hash), \
                block_number = \(Int64(number)), error = NULL, updated_at = \(unit.now) WHERE proof_hash = \(anchor.proofHash)
                """
            )
        }
    }

    func fail(_ anchor: DIDAnchor, _ reason: String) async throws {
        logger.warning("DID change not anchored: \(reason)", metadata: ["substrate.proof": "0x\(HexText.encode(anchor.proofHash))"])
        try await settle(anchor, .failed, error: reason)
    }

    /// Records why the last attempt did not go through, the status unchanged.
    func note(_ anchor: DIDAnchor, _ reason: String) async throws {
        try await settle(anchor, anchor.status, error: reason)
    }

    /// Sets `anchor`'s status; `finalized` and `failed` append their event in the same unit.
    func settle(_ anchor: DIDAnchor, _ status: DIDAnchors.Status, error: String?) async throws {
        let prefix = ss58Prefix
        try await write { [lease] unit in
            if let lease { try unit.fence(lease) }
            try unit.connection.execute(
                """
                UPDATE substrate_did_anchors SET status = \(status.rawValue), error = \(error), updated_at = \(unit.now) \
                WHERE proof_hash = \(anchor.proofHash)
                """
            )
            guard status == .finalized || status == .failed, let settled = try DIDAnchors.anchor(anchor.proofHash, on: unit.connection) else {
                return
            }
            let did = "did:peaq:" + (try SS58.encode(settled.didAccount, prefix: prefix))
            try unit.emit(
                status == .finalized ? SubstrateEvents.didAnchored : SubstrateEvents.didAnchorFailed,
                subject: did,
                data: DIDAnchorRepresentation(settled, did: did)
            )
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await context.database.read(body)
    }

    @discardableResult
    private func write<T: Sendable>(_ body: @escaping @Sendable (UnitOfWork) throws -> T) async throws -> T {
        try await context.write(body)
    }
}

/// What the anchorer signs for: the node's chain (metadata, genesis, runtime version) and the
/// era length its wallets use.
struct NodeTarget: Sendable {
    let chain: DIDChain
    /// rails.md §4.2: `min(BlockHashCount, 300000 ms / MinimumPeriod + 5)` blocks (rounded up to a
    /// power of two by the era), 64 when the runtime does not say.
    let eraPeriod: UInt64

    enum Upgraded: Error { case runtime }

    /// The node's chain now; `metadata` when the caller already holds the current runtime's.
    static func load(_ node: SubstrateNode, metadata known: RuntimeMetadata? = nil) async throws -> NodeTarget {
        guard let genesis = try await node.blockHash(0) else { throw NodeRPCError.unexpected("the node has no block 0") }
        let metadata: RuntimeMetadata
        if let known { metadata = known } else { metadata = try await node.metadata() }
        let current = try await node.runtimeVersion()
        let declared = try metadata.runtimeVersion()
        let version = RuntimeVersion(
            specName: declared.specName,
            implName: declared.implName,
            authoringVersion: declared.authoringVersion,
            specVersion: current.specVersion,
            implVersion: declared.implVersion,
            transactionVersion: current.transactionVersion
        )
        let chain: DIDChain
        do {
            chain = try DIDChain(metadata: metadata, genesisHash: genesis, version: version)
        } catch {
            throw NodeRPCError.unexpected("the node's runtime has no \(DIDChain.pallet) pallet")
        }
        let blockHashCount = (try? metadata.decodeConstant(pallet: "System", name: "BlockHashCount"))?.unsignedInteger.flatMap { UInt64(exactly: $0) }
        let minimumPeriod = (try? metadata.decodeConstant(pallet: "Timestamp", name: "MinimumPeriod"))?.unsignedInteger.flatMap {
            UInt64(exactly: $0)
        }
        var period: UInt64 = 64
        if let blockHashCount, let minimumPeriod, minimumPeriod > 0 {
            period = max(4, min(blockHashCount, 300_000 / minimumPeriod + 5))
        }
        return NodeTarget(chain: chain, eraPeriod: period)
    }

    /// The era a signing made now gets: ``eraPeriod`` blocks from the last finalized block (the
    /// birth block below it, so its hash is final).
    func mortality(_ node: SubstrateNode) async throws -> (era: Era, birth: UInt64, signing: DIDChain.Mortality) {
        let head = try await node.finalizedHead()
        let era = Era.mortal(period: eraPeriod, currentBlock: head.number)
        let birth = era.birth(currentBlock: head.number)
        guard let birthHash = try await node.blockHash(birth) else { throw NodeRPCError.unexpected("no block \(birth) below the finalized head") }
        return (era, birth, DIDChain.Mortality(era: era, birthBlockHash: birthHash))
    }

    /// Throws ``Upgraded/runtime`` when the node runs another runtime than the one loaded.
    func checkRuntime(_ node: SubstrateNode) async throws {
        let current = try await node.runtimeVersion()
        if current.specVersion != chain.version.specVersion || current.transactionVersion != chain.version.transactionVersion {
            throw Upgraded.runtime
        }
    }
}

extension DIDCall {
    /// The call a verified proof carries.
    init(_ proof: VerifiedDIDProof) throws {
        guard let kind = Kind(rawValue: proof.callName) else { throw DIDProofError(message: "not a DID change: \(proof.callName)") }
        let arguments = Dictionary(proof.arguments, uniquingKeysWith: { first, _ in first })
        guard let account = arguments["did_account"]?.byteArray, let name = arguments["name"]?.byteArray else {
            throw DIDProofError(message: "the proof's call has no did_account and name")
        }
        var validFor: UInt32?
        if let option = arguments["valid_for"], option.variantName == "Some" {
            validFor = option.fields?.first?.value.unsignedInteger.flatMap { UInt32(exactly: $0) }
        }
        self.init(kind: kind, didAccount: account, name: name, value: arguments["value"]?.byteArray, validFor: validFor)
    }
}
