import ChainKit
import HubKernel
import Hummingbird

/// `/v1/rails/substrate/anchors` and `/v1/rails/substrate/node…`: the anchoring of DID changes
/// on the configured peaq node (``DIDAnchorer``), and reads from that node.
///
/// - `GET anchors?status=&did=`: the anchors of the caller's DIDs (wallets and sensors), newest
///   first, at most 50 (`limit`, up to 500).
/// - `GET node`: the node's chain (genesis, runtime, finalized and best block) read now, and the
///   anchors in each status; 404 `node_not_configured` without a `node_url`, 503
///   `node_unavailable` when the node does not answer.
/// - `GET node/accounts/{address}`: the account's `System.Account` there (nonce, balances in
///   either layout, transferable).
/// - `GET node/dids/{did}/attributes/{name}`: the attribute in chain storage
///   (`PeaqDid.AttributeStore`), or 404 `attribute_not_found`.
/// - `POST anchors/{proof_hash}/prepare`, then `POST anchors/{proof_hash}/signature`
///   `{"nonce", "era_period", "era_birth", "signature"}`: an external wallet's holder signs the
///   node's payload for a change waiting as `holder_signature_required` (``HolderAnchors``).
/// - `POST anchors/{proof_hash}/retry`: a `failed` anchor goes back to `pending` (after funding
///   the signer, say), to be signed afresh; 409 `anchor_not_failed` otherwise.
struct NodeController: Sendable {
    let context: PluginContext
    let reader: NodeReader?
    let ss58Prefix: UInt16
    let holderAnchors: HolderAnchors

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.get("anchors", use: anchors)
        group.post("anchors/{proof_hash}/prepare", use: prepareHolderSignature)
        group.post("anchors/{proof_hash}/signature", use: submitHolderSignature)
        group.post("anchors/{proof_hash}/retry", use: retry)
        group.get("node", use: status)
        group.get("node/accounts/{address}", use: account)
        group.get("node/dids/{did}/attributes/{name}", use: attribute)
    }

    @Sendable func anchors(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        var filter: SQL = ""
        if let text = request.uri.queryParameters.get("status") {
            guard let status = DIDAnchors.Status(rawValue: text) else { throw SubstrateError.unknownAnchorStatus(text) }
            filter = filter + " AND a.status = \(status.rawValue)"
        }
        if let did = request.uri.queryParameters.get("did") {
            let account = try DIDRegistry.account(ofDID: did)
            filter = filter + " AND a.did_account = \(account)"
        }
        let limit = try QueryLimit.limit(request, maximum: 500)
        let query: SQL =
            "SELECT " + DIDAnchors.columns + DIDAnchors.from + " WHERE " + DIDAnchors.owned(by: principal.userID) + filter
            + " ORDER BY a.created_at DESC, p.signer, p.nonce DESC LIMIT \(limit)"
        let rows = try await self.context.database.read { connection in try connection.query(query).map(DIDAnchor.init) }
        let prefix = ss58Prefix
        let shown: [DIDAnchorRepresentation] = try rows.map { anchor in
            DIDAnchorRepresentation(anchor, did: "did:peaq:" + (try SS58.encode(anchor.didAccount, prefix: prefix)))
        }
        return try context.json(["data": shown])
    }

    @Sendable func status(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let reader = try requireReader()
        let counts = try await self.context.database.read { try DIDAnchors.counts(on: $0) }
        let shown = try await reader.read { node, metadata in
            guard let genesis = try await node.blockHash(0) else { throw NodeRPCError.unexpected("no block 0") }
            let version = try await node.runtimeVersion()
            let finalized = try await node.finalizedHead()
            let best = try await node.bestNumber()
            return NodeStatusRepresentation(
                url: reader.node.url,
                genesisHash: "0x" + HexText.encode(genesis),
                specName: (try? metadata.runtimeVersion().specName) ?? "",
                specVersion: version.specVersion,
                transactionVersion: version.transactionVersion,
                finalizedNumber: finalized.number,
                finalizedHash: "0x" + HexText.encode(finalized.hash),
                bestNumber: best,
                anchors: counts
            )
        }
        return try context.json(shown)
    }

    @Sendable func account(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let reader = try requireReader()
        let address = try context.parameters.require("address")
        let account = try SubstrateSignatureVerifier.publicKey(address)
        let prefix = ss58Prefix
        let shown = try await reader.read { node, metadata in
            let key = try AccountInfo.storageKey(accountID: account, metadata: metadata)
            let info = try AccountInfo(storageValue: try await node.storage(key), metadata: metadata)
            return NodeAccountRepresentation(address: try SS58.encode(account, prefix: prefix), info: info)
        }
        return try context.json(shown)
    }

    @Sendable func attribute(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let reader = try requireReader()
        let did = try DIDsController.pathText(context.parameters.require("did"))
        let name = Array(try DIDsController.pathText(context.parameters.require("name")).utf8)
        let account = try DIDRegistry.account(ofDID: did)
        try DIDRegistry.checkName(name)
        let shown = try await reader.read { node, metadata -> NodeAttributeRepresentation? in
            let key = try metadata.storageKey(pallet: DIDChain.pallet, item: "AttributeStore", keys: [blake2b256(account + name)])
            let head = try await node.finalizedHead()
            let best = try await node.blockHash(try await node.bestNumber()) ?? head.hash
            guard let stored = try await node.storage(key, at: best),
                let value = try metadata.decodeStorageValue(pallet: DIDChain.pallet, item: "AttributeStore", bytes: stored)
            else { return nil }
            return NodeAttributeRepresentation(did: did, value: value, blockHash: best, finalizedNumber: head.number)
        }
        guard let shown else { throw SubstrateError.attributeNotFound() }
        return try context.json(shown)
    }

    struct HolderSignatureRequest: Decodable {
        var nonce: UInt64?
        var eraPeriod: UInt64?
        var eraBirth: UInt64?
        var signature: String?
    }

    @Sendable func prepareHolderSignature(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let proofHash = try Self.proofHash(context)
        return try context.json(try await holderAnchors.prepare(proofHash, by: principal.userID))
    }

    @Sendable func submitHolderSignature(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let proofHash = try Self.proofHash(context)
        var request = request
        let body = try await request.decodeJSON(as: HolderSignatureRequest.self, context: context)
        guard let nonce = body.nonce else { throw SubstrateError.invalid("nonce", "Send the nonce prepare answered.") }
        guard let period = body.eraPeriod, let birth = body.eraBirth else {
            throw SubstrateError.invalid("era_period", "Send the era_period and era_birth prepare answered.")
        }
        guard let text = body.signature, let signature = HexText.decode(text) else {
            throw SubstrateError.changeSignatureInvalid("signature is the sr25519 signature of the prepared message, in hex.")
        }
        let signed = HolderAnchors.Signed(nonce: nonce, eraPeriod: period, eraBirth: birth, signature: signature)
        return try context.json(try await holderAnchors.submit(proofHash, signed, by: principal.userID))
    }

    @Sendable func retry(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let proofHash = try Self.proofHash(context)
        let (user, prefix) = (principal.userID, ss58Prefix)
        let anchor = try await self.context.write { unit in
            guard try DIDAnchors.anchor(proofHash, ownedBy: user, on: unit.connection) != nil else { throw SubstrateError.anchorNotFound() }
            let changed = try unit.connection.execute(
                """
                UPDATE substrate_did_anchors SET status = \(DIDAnchors.Status.pending.rawValue), extrinsic = NULL, extrinsic_hash = NULL, \
                nonce = NULL, era_birth = NULL, era_period = NULL, block_hash = NULL, block_number = NULL, error = NULL, signings = 0, \
                updated_at = \(unit.now) WHERE proof_hash = \(proofHash) AND status = \(DIDAnchors.Status.failed.rawValue)
                """
            )
            guard changed == 1, let pending = try DIDAnchors.anchor(proofHash, on: unit.connection) else { throw SubstrateError.anchorNotFailed() }
            return pending
        }
        return try context.json(DIDAnchorRepresentation(anchor, did: "did:peaq:" + (try SS58.encode(anchor.didAccount, prefix: prefix))))
    }

    static func proofHash(_ context: HubRequestContext) throws -> [UInt8] {
        guard let bytes = HexText.decode(try context.parameters.require("proof_hash")), bytes.count == 32 else {
            throw SubstrateError.invalid("proof_hash", "A proof hash is 0x and 64 hex digits.")
        }
        return bytes
    }

    private func requireReader() throws -> NodeReader {
        guard let reader else { throw SubstrateError.nodeNotConfigured() }
        return reader
    }

}

struct NodeStatusRepresentation: Sendable, Codable, Equatable {
    var url: String
    var genesisHash: String
    var specName: String
    var specVersion: UInt32
    var transactionVersion: UInt32
    var finalizedNumber: UInt64
    var finalizedHash: String
    var bestNumber: UInt64
    /// How many of this hub's DID changes are in each anchoring status.
    var anchors: [String: Int]
}

/// `System.Account` of an address on the node. Amounts in the chain's smallest unit, as strings.
struct NodeAccountRepresentation: Sendable, Codable, Equatable {
    var address: String
    var nonce: UInt64
    var free: String
    var reserved: String
    var frozen: String
    /// `current` (`frozen`, `flags`) or `legacy` (`misc_frozen`, `fee_frozen`, before 2023).
    var layout: String
    var miscFrozen: String?
    var feeFrozen: String?
    var flags: String?
    /// What can be sent: `free − max(misc_frozen, fee_frozen)` in the legacy layout, `free −
    /// max(frozen − reserved, 0)` in the current one.
    var transferable: String

    init(address: String, info: AccountInfo) {
        self.address = address
        nonce = info.nonce
        let data = info.data
        free = String(data.free)
        reserved = String(data.reserved)
        frozen = String(data.frozen)
        layout = data.isLegacyLayout ? "legacy" : "current"
        miscFrozen = data.miscFrozen.map { String($0) }
        feeFrozen = data.feeFrozen.map { String($0) }
        flags = data.flags.map { String($0) }
        let locked = data.isLegacyLayout ? data.frozen : (data.frozen > data.reserved ? data.frozen - data.reserved : 0)
        transferable = String(data.free > locked ? data.free - locked : 0)
    }
}

/// A DID attribute as chain storage holds it.
struct NodeAttributeRepresentation: Sendable, Codable, Equatable {
    var did: String
    var name: String
    var value: String?
    var valueHex: String
    var validity: UInt64
    /// The block time it was created, in Unix milliseconds.
    var created: UInt64
    /// The best block it was read at, and the finalized block number then.
    var blockHash: String
    var finalizedNumber: UInt64

    init(did: String, value: SCALEValue, blockHash: [UInt8], finalizedNumber: UInt64) {
        self.did = did
        let nameBytes = value["name"]?.byteArray ?? []
        let valueBytes = value["value"]?.byteArray ?? []
        name = String(decoding: nameBytes, as: UTF8.self)
        self.value = String(validating: valueBytes, as: UTF8.self)
        valueHex = "0x" + HexText.encode(valueBytes)
        validity = value["validity"]?.unsignedInteger.flatMap { UInt64(exactly: $0) } ?? 0
        created = value["created"]?.unsignedInteger.flatMap { UInt64(exactly: $0) } ?? 0
        self.blockHash = "0x" + HexText.encode(blockHash)
        self.finalizedNumber = finalizedNumber
    }
}
