import ChainKit
import HubKernel

/// The anchoring of the offline registry's DID changes on a peaq node (``DIDAnchorer``): a row
/// per proof in `substrate_did_anchors`, written as an outbox in the unit that records the
/// change, then moved along by the anchorer:
///
/// `pending` → `submitted` (signed for the node and stored before it is sent, so a retry sends
/// the same bytes) → `in_block` → `finalized`; or `failed` (the node refused it for good, or it
/// was included but the chain's attribute is not what the change made it); or
/// `holder_signature_required` (the signer is an external wallet: the hub holds no key to sign
/// for the node).
enum DIDAnchors {
    enum Status: String, Sendable, CaseIterable {
        case pending
        case submitted
        case inBlock = "in_block"
        case finalized
        case failed
        case holderSignatureRequired = "holder_signature_required"
    }

    static let columns: SQL = """
        a.proof_hash, a.did_account, a.status, a.extrinsic, a.extrinsic_hash, a.nonce, a.era_birth, a.era_period, \
        a.block_hash, a.block_number, a.error, a.signings, a.created_at, a.updated_at, p.call, p.name, p.signer, p.extrinsic AS proof
        """
    static let from: SQL = " FROM substrate_did_anchors a JOIN substrate_did_proofs p ON p.hash = a.proof_hash"

    /// Queues the anchoring of a proof, in the unit that records it.
    static func enqueue(proofHash: [UInt8], didAccount: [UInt8], in unit: UnitOfWork) throws {
        try unit.connection.execute(
            """
            INSERT INTO substrate_did_anchors (proof_hash, did_account, status, signings, created_at, updated_at) \
            VALUES (\(proofHash), \(didAccount), \(Status.pending.rawValue), 0, \(unit.now), \(unit.now))
            """
        )
    }

    /// Queues every proof that has no anchor yet (those recorded before a node was configured),
    /// oldest first. Returns how many.
    @discardableResult
    static func enqueueUnanchored(in unit: UnitOfWork) throws -> Int {
        try unit.connection.execute(
            """
            INSERT INTO substrate_did_anchors (proof_hash, did_account, status, signings, created_at, updated_at) \
            SELECT p.hash, p.did_account, \(Status.pending.rawValue), 0, p.created_at, \(unit.now) FROM substrate_did_proofs p \
            WHERE NOT EXISTS (SELECT 1 FROM substrate_did_anchors a WHERE a.proof_hash = p.hash)
            """
        )
    }

    /// The oldest anchor in `status`, in the order its changes were made (a DID's add before its update).
    static func oldest(_ status: Status, on connection: any SQLConnection) throws -> DIDAnchor? {
        try connection.queryFirst(
            "SELECT " + columns + from + " WHERE a.status = \(status.rawValue) ORDER BY a.created_at, p.signer, p.nonce LIMIT 1"
        ).map(DIDAnchor.init)
    }

    static func all(_ status: Status, limit: Int, on connection: any SQLConnection) throws -> [DIDAnchor] {
        try connection.query(
            "SELECT " + columns + from + " WHERE a.status = \(status.rawValue) ORDER BY a.created_at, p.signer, p.nonce LIMIT \(limit)"
        ).map(DIDAnchor.init)
    }

    static func anchor(_ proofHash: [UInt8], on connection: any SQLConnection) throws -> DIDAnchor? {
        try connection.queryFirst("SELECT " + columns + from + " WHERE a.proof_hash = \(proofHash)").map(DIDAnchor.init)
    }

    /// The condition that an anchor (`a`) is of one of `user`'s DIDs: their wallets' and sensors'.
    static func owned(by user: UserID) -> SQL {
        """
        (a.did_account IN (SELECT public_key FROM substrate_wallets WHERE user_id = \(user)) \
        OR a.did_account IN (SELECT public_key FROM substrate_sensors WHERE user_id = \(user)))
        """
    }

    /// The anchor `proofHash` when it is of one of `user`'s DIDs.
    static func anchor(_ proofHash: [UInt8], ownedBy user: UserID, on connection: any SQLConnection) throws -> DIDAnchor? {
        try connection.queryFirst("SELECT " + columns + from + " WHERE a.proof_hash = \(proofHash) AND " + owned(by: user)).map(DIDAnchor.init)
    }

    /// The node's block holding the change `proofHash`, once that block is finalized.
    static func finalizedBlock(of proofHash: [UInt8], on connection: any SQLConnection) throws -> UInt64? {
        try connection.queryFirst(
            "SELECT block_number FROM substrate_did_anchors WHERE proof_hash = \(proofHash) AND status = \(Status.finalized.rawValue)"
        )?.optionalInt("block_number").map { UInt64($0) }
    }

    /// How many anchors are in each status.
    static func counts(on connection: any SQLConnection) throws -> [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: Status.allCases.map { ($0.rawValue, 0) })
        for row in try connection.query("SELECT status, count(*) AS n FROM substrate_did_anchors GROUP BY status") {
            counts[try row.text("status")] = Int(try row.int("n"))
        }
        return counts
    }
}

/// A row of `substrate_did_anchors` with what its proof says.
struct DIDAnchor: Sendable, Hashable {
    var proofHash: [UInt8]
    var didAccount: [UInt8]
    var status: DIDAnchors.Status
    /// The extrinsic signed for the node, once ``DIDAnchors/Status/submitted``.
    var extrinsic: [UInt8]?
    var extrinsicHash: [UInt8]?
    /// The node nonce it carries.
    var nonce: UInt64?
    /// Its era: the birth block and the period (it can be included in blocks birth ..< birth + period).
    var eraBirth: UInt64?
    var eraPeriod: UInt64?
    var blockHash: [UInt8]?
    var blockNumber: UInt64?
    var error: String?
    /// How many times the hub signed it for the node (again only once an earlier signing can no
    /// longer be included).
    var signings: Int
    var createdAt: LedgerTimestamp
    var updatedAt: LedgerTimestamp
    /// The proof's call (`add_attribute`, …), attribute name and signer, and the proof itself.
    var call: String
    var name: [UInt8]
    var signer: [UInt8]
    var proof: [UInt8]

    init(_ row: SQLRow) throws {
        proofHash = try row.bytes("proof_hash")
        didAccount = try row.bytes("did_account")
        let text = try row.text("status")
        guard let status = DIDAnchors.Status(rawValue: text) else { throw DIDProofError(message: "unknown anchor status \(text)") }
        self.status = status
        extrinsic = try row.optionalBytes("extrinsic")
        extrinsicHash = try row.optionalBytes("extrinsic_hash")
        nonce = try row.optionalInt("nonce").map { UInt64($0) }
        eraBirth = try row.optionalInt("era_birth").map { UInt64($0) }
        eraPeriod = try row.optionalInt("era_period").map { UInt64($0) }
        blockHash = try row.optionalBytes("block_hash")
        blockNumber = try row.optionalInt("block_number").map { UInt64($0) }
        error = try row.optionalText("error")
        signings = Int(try row.int("signings"))
        createdAt = try row.decode("created_at")
        updatedAt = try row.decode("updated_at")
        call = try row.text("call")
        name = try row.bytes("name")
        signer = try row.bytes("signer")
        proof = try row.bytes("proof")
    }

    /// Whether its era has ended by block `number`: it can no longer be included after it.
    func eraEnded(by number: UInt64) -> Bool {
        guard let eraBirth, let eraPeriod else { return true }
        return number >= eraBirth + eraPeriod
    }
}

/// An anchor as the API shows it, and as `substrate.did.anchored` / `anchor_failed` carry it.
struct DIDAnchorRepresentation: Sendable, Codable, Equatable {
    var proofHash: String
    var did: String
    var call: String
    var name: String
    var status: String
    var extrinsicHash: String?
    var nonce: UInt64?
    var blockHash: String?
    var blockNumber: UInt64?
    var error: String?
    var signings: Int
    var createdAt: String
    var updatedAt: String

    init(_ anchor: DIDAnchor, did: String) {
        proofHash = "0x" + HexText.encode(anchor.proofHash)
        self.did = did
        call = DIDChain.pallet + "." + anchor.call
        name = String(decoding: anchor.name, as: UTF8.self)
        status = anchor.status.rawValue
        extrinsicHash = anchor.extrinsicHash.map { "0x" + HexText.encode($0) }
        nonce = anchor.nonce
        blockHash = anchor.blockHash.map { "0x" + HexText.encode($0) }
        blockNumber = anchor.blockNumber
        error = anchor.error
        signings = anchor.signings
        createdAt = anchor.createdAt.description
        updatedAt = anchor.updatedAt.description
    }
}
