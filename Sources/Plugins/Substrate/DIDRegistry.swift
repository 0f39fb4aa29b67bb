import ChainKit
import HTTPTypes
import HubKernel
import Hummingbird

/// The hub as a DID registry of its own, offline, with the PeaqDid pallet's rules (rails.md
/// §4.1): a DID is `did:peaq:<SS58>` of an account; its attributes have a name of at most 64
/// bytes, a value, a validity (a block number, `u32::MAX` for "forever") and a creation time
/// (milliseconds, the pallet's `Moment`).
///
/// - Only the DID's owner changes it: the user holding the DID's wallet. Anyone else gets
///   `attribute_authorization_failed`, adding included (the hub signs for its users only).
/// - Every change is a `PeaqDid` extrinsic signed by the wallet's custodial key (``DIDChain``),
///   checked again and stored as the proof with its blake2-256 hash, in the unit that changes the
///   attribute and appends `substrate.did.attribute_*`. The holder of an external wallet signs
///   their own changes instead (``prepare(_:by:)``, then submitted with the signature); without
///   one they are refused (`custodial_key_required`).
/// - Blocks: the registry has no chain, so its block number is time in peaq's blocks, Unix
///   milliseconds / 6000 (`MILLISECS_PER_BLOCK`); `valid_for: n` makes `validity` that plus n.
struct DIDRegistry: Sendable {
    static let millisecondsPerBlock: UInt64 = 6000

    let context: PluginContext
    let secrets: WalletSecrets
    let ss58Prefix: UInt16
    let chain: DIDChain
    /// Whether a node is configured: each change is then queued for anchoring in its unit.
    var anchoring = false

    /// A change asked for by `user`.
    struct Change: Sendable {
        var kind: DIDCall.Kind
        var did: String
        var name: [UInt8]
        var value: [UInt8]?
        var validFor: UInt32?
        /// The value computed from the attribute's current one (nil when there is none), called
        /// in the change's unit after the wallet and the attribute are locked: a read-modify-write
        /// (a service added to the DID document) cannot lose a concurrent change. It may throw to
        /// refuse the change. Used instead of ``value`` when set.
        var rewrite: (@Sendable (_ current: [UInt8]?) throws -> [UInt8])? = nil
    }

    static func block(at time: LedgerTimestamp) -> UInt64 { time.nanoseconds / 1_000_000 / millisecondsPerBlock }

    /// The account a `did:peaq:` DID names.
    static func account(ofDID did: String) throws -> [UInt8] {
        let prefix = "did:peaq:"
        guard did.hasPrefix(prefix) else { throw SubstrateError.parseError("it starts with did:peaq:") }
        do {
            return try SubstrateSignatureVerifier.publicKey(String(did.dropFirst(prefix.count)))
        } catch let error as SubstrateError {
            throw SubstrateError.parseError(error.message)
        }
    }

    func did(_ account: [UInt8]) throws -> String { "did:peaq:" + (try SS58.encode(account, prefix: ss58Prefix)) }

    static func checkName(_ name: [UInt8]) throws {
        guard name.count <= 64 else { throw SubstrateError.attributeNameExceedMax64(name.count) }
        guard !name.isEmpty else { throw SubstrateError.invalidSuppliedValue("name", "An attribute has a name.") }
    }

    /// Adds, updates or removes an attribute as `user`, answering the attribute (or, removed, its
    /// proof). Nothing changes when a rule refuses it. With an `Idempotency-Key`, the key and the
    /// answer (a refusal included) are recorded in the change's unit, as the kernel's POSTs do.
    /// - Parameter reply: the answer built from what the change did, in its unit (so an
    ///   `Idempotency-Key` records it); by default the attribute (201 with its `Location` when
    ///   added) or the removal.
    /// - Parameter holderSignature: `nil` to sign with the wallet's custodial key; the holder's
    ///   signature for a change they signed (``prepare(_:by:)``).
    func change(
        _ change: Change,
        by user: UserID,
        holderSignature: HolderSignature? = nil,
        reply: (@Sendable (Written) throws -> HTTPReply)? = nil
    ) async throws -> Response {
        // Reading changes nothing: it is a query (``attributes(of:name:)``), not a signed call.
        guard change.kind != .readAttribute else { throw SubstrateError.invalidSuppliedValue("call", "read_attribute is a read.") }
        let account = try Self.account(ofDID: change.did)
        try Self.checkName(change.name)
        let prefix = ss58Prefix
        return try await context.respond { [secrets] unit in
            let connection = unit.connection
            // The wallet row, locked: one signer's changes (and nonces) go one at a time.
            guard let wallet = try SubstrateWallets.wallet(account, on: connection, forUpdate: true), wallet.userID == user else {
                throw SubstrateError.attributeAuthorizationFailed()
            }
            // Signed with the wallet's own key, derived as the wallet was made: the DID's holder
            // is the extrinsic's origin.
            let written = try apply(
                change,
                account: account,
                signer: account,
                in: unit,
                signing: holderSignature.map(Signing.holder)
                    ?? .key {
                        guard wallet.kind == .custodial,
                            let sealed = try connection.queryFirst("SELECT sealed_secret FROM substrate_wallets WHERE public_key = \(account)")?
                                .optionalBytes("sealed_secret")
                        else { throw SubstrateError.custodialKeyRequired() }
                        return try secrets.keyPair(sealed: sealed, publicKey: account, address: try SS58.encode(account, prefix: prefix))
                    }
            )
            if let reply { return try reply(written) }
            return try Self.reply(written)
        }
    }

    /// The attribute (201 with its `Location` when added), or the removal.
    static func reply(_ result: Written) throws -> HTTPReply {
        switch result {
        case .written(let shown, let added):
            try .json(
                shown,
                status: added ? .created : .ok,
                location: added ? "/v1/rails/substrate/dids/\(shown.did)/attributes/\(shown.urlName)" : nil
            )
        case .removed(let removed):
            try .json(removed)
        }
    }

    /// What ``apply(_:account:signer:in:signing:)`` wrote.
    enum Written: Sendable {
        case written(DIDAttributeRepresentation, added: Bool)
        case removed(DIDRemovalRepresentation)
    }

    /// How a change's extrinsic gets its signature.
    enum Signing {
        /// The hub signs with a key it holds, made only once the rules pass (a refusal opens no secret).
        case key(() throws -> Sr25519.KeyPair)
        /// The signer signed the message ``prepare(_:by:)`` answered.
        case holder(HolderSignature)
    }

    /// A signature the DID's holder made over the message ``prepare(_:by:)`` answered for `nonce`.
    struct HolderSignature: Sendable {
        var nonce: UInt64
        var signature: [UInt8]
    }

    /// Checks `change` to the DID of `account` against the pallet's rules, signs it as `signing`
    /// says for `signer` (the extrinsic's origin, so the attribute's owner) and records it in
    /// `unit`: the proof, the attribute and the `substrate.did.attribute_*` event. The caller has
    /// authorised the change, checked the name and locked the signer's row (its nonces count its
    /// proofs). Other units of the rail (sensors) write their DIDs through here too.
    func apply(_ change: Change, account: [UInt8], signer: [UInt8], in unit: UnitOfWork, signing: Signing) throws -> Written {
        let connection = unit.connection
        let did = try did(account)
        let existing = try Self.attribute(change, account: account, signer: signer, on: connection, lock: true)
        let value = try change.rewrite?(existing?.value) ?? change.value
        let validity: UInt64
        if let validFor = change.validFor {
            validity = Self.block(at: unit.now) + UInt64(validFor)
            guard validity <= UInt64(UInt32.max) else { throw SubstrateError.maxBlockNumberExceeded() }
        } else {
            validity = UInt64(UInt32.max)
        }

        // Sign (or take the holder's signature), and check the result reads back as the call.
        let nonce = try Self.nonce(of: signer, on: connection)
        let call = DIDCall(kind: change.kind, didAccount: account, name: change.name, value: value, validFor: change.validFor)
        let verified: VerifiedDIDProof
        let extrinsic: SignedExtrinsic
        switch signing {
        case .key(let makeKeyPair):
            let keyPair = try makeKeyPair()
            guard keyPair.publicKey == signer else { throw SubstrateError.keyUnavailable(try SS58.encode(signer, prefix: ss58Prefix)) }
            extrinsic = try chain.sign(call, keyPair: keyPair, nonce: nonce)
            verified = try chain.verify(extrinsic.bytes)
        case .holder(let signed):
            guard signed.nonce == nonce else { throw SubstrateError.nonceStale(signed: signed.nonce, current: nonce) }
            guard signed.signature.count == 64 else {
                throw SubstrateError.changeSignatureInvalid("An sr25519 signature is 64 bytes, not \(signed.signature.count).")
            }
            extrinsic = try chain.assemble(call, signer: signer, nonce: nonce, signature: signed.signature)
            do {
                verified = try chain.verify(extrinsic.bytes)
            } catch is DIDProofError {
                throw SubstrateError.changeSignatureInvalid("The signature is not the DID's key's over this change's payload at nonce \(nonce).")
            }
        }
        guard verified.call == (try chain.call(call)), verified.signer == signer else {
            throw DIDProofError(message: "the signed proof does not read back as its call")
        }
        let proof = DIDProof(hash: verified.hash, call: change.kind.rawValue, signer: signer, nonce: nonce, extrinsic: extrinsic.bytes)
        try connection.execute(
            """
            INSERT INTO substrate_did_proofs (hash, did_account, name, call, signer, nonce, extrinsic, created_at) \
            VALUES (\(proof.hash), \(account), \(change.name), \(proof.call), \(signer), \(Int64(nonce)), \(proof.extrinsic), \(unit.now))
            """
        )
        if anchoring { try DIDAnchors.enqueue(proofHash: proof.hash, didAccount: account, in: unit) }
        let createdMilliseconds = Int64(unit.now.nanoseconds / 1_000_000)
        switch change.kind {
        case .addAttribute:
            try connection.execute(
                """
                INSERT INTO substrate_did_attributes (did_account, name, value, validity, created, owner, updated_at, proof_hash) \
                VALUES (\(account), \(change.name), \(value ?? []), \(Int64(validity)), \(createdMilliseconds), \(signer), \
                \(unit.now), \(proof.hash))
                """
            )
        case .updateAttribute:
            try connection.execute(
                """
                UPDATE substrate_did_attributes SET value = \(value ?? []), validity = \(Int64(validity)), \
                updated_at = \(unit.now), proof_hash = \(proof.hash) WHERE did_account = \(account) AND name = \(change.name)
                """
            )
        case .removeAttribute, .readAttribute:
            try connection.execute("DELETE FROM substrate_did_attributes WHERE did_account = \(account) AND name = \(change.name)")
        }
        let shownProof = DIDProofRepresentation(proof)
        switch change.kind {
        case .addAttribute, .updateAttribute:
            let attribute = DIDAttribute(
                didAccount: account,
                name: change.name,
                value: value ?? [],
                validity: validity,
                created: existing?.created ?? UInt64(createdMilliseconds),
                owner: signer,
                updatedAt: unit.now,
                proofHash: proof.hash
            )
            let shown = DIDAttributeRepresentation(attribute, did: did, currentBlock: Self.block(at: unit.now), proof: shownProof)
            let added = change.kind == .addAttribute
            try unit.emit(added ? SubstrateEvents.didAttributeAdded : SubstrateEvents.didAttributeUpdated, subject: did, data: shown)
            return .written(shown, added: added)
        case .removeAttribute, .readAttribute:
            let removed = DIDRemovalRepresentation(did: did, name: String(decoding: change.name, as: UTF8.self), proof: shownProof)
            try unit.emit(SubstrateEvents.didAttributeRemoved, subject: did, data: removed)
            return .removed(removed)
        }
    }

    /// The attribute `change` is about, checked against the pallet's rules for `signer`: none to
    /// add, one of the signer's to update or remove. `lock` takes its row for the change.
    static func attribute(
        _ change: Change,
        account: [UInt8],
        signer: [UInt8],
        on connection: any SQLConnection,
        lock: Bool
    ) throws -> DIDAttribute? {
        let existing = try connection.queryFirst(
            "SELECT " + DIDAttribute.columns
                + " FROM substrate_did_attributes WHERE did_account = \(account) AND name = \(change.name)"
                + (lock ? SQL.forUpdate(connection.dialect) : "")
        ).map(DIDAttribute.init)
        switch change.kind {
        case .addAttribute:
            if existing != nil { throw SubstrateError.attributeAlreadyExist() }
        case .updateAttribute, .removeAttribute, .readAttribute:
            guard let existing else { throw SubstrateError.attributeNotFound() }
            guard existing.owner == signer else { throw SubstrateError.attributeAuthorizationFailed() }
        }
        return existing
    }

    /// The signer's next nonce: how many proofs it has signed.
    static func nonce(of signer: [UInt8], on connection: any SQLConnection) throws -> UInt64 {
        UInt64(try connection.queryFirst("SELECT count(*) AS n FROM substrate_did_proofs WHERE signer = \(signer)")?.int("n") ?? 0)
    }

    /// The attributes of a DID (all, or the one called `name`), for anyone signed in: the
    /// registry is public, like chain storage.
    func attributes(of did: String, name: [UInt8]?) async throws -> [DIDAttributeRepresentation] {
        let account = try Self.account(ofDID: did)
        if let name { try Self.checkName(name) }
        let registry = self
        return try await context.database.read { connection in try registry.attributes(of: account, name: name, on: connection) }
    }

    /// The attributes of the DID of `account` as read on `connection` (in a read, or in a unit
    /// that is changing them).
    func attributes(of account: [UInt8], name: [UInt8]?, on connection: any SQLConnection) throws -> [DIDAttributeRepresentation] {
        let shownDID = try did(account)
        var filter: SQL = ""
        if let name { filter = " AND a.name = \(name)" }
        let rows = try connection.query(
            "SELECT " + DIDAttribute.joinedColumns
                + " FROM substrate_did_attributes a JOIN substrate_did_proofs p ON p.hash = a.proof_hash WHERE a.did_account = \(account)"
                + filter + " ORDER BY a.name"
        ).map { row in (try DIDAttribute(row), try DIDProof(row)) }
        let block = Self.block(at: context.clock.now())
        return rows.map { DIDAttributeRepresentation($0.0, did: shownDID, currentBlock: block, proof: DIDProofRepresentation($0.1)) }
    }
}

extension DIDRegistry {
    /// `user`'s DIDs: one per wallet, oldest first, with how many attributes each has.
    func dids(of user: UserID) async throws -> [DIDSummaryRepresentation] {
        let rows = try await context.database.read { connection in
            try connection.query(
                """
                SELECT w.public_key, w.kind, count(a.name) AS attributes FROM substrate_wallets w                 LEFT JOIN substrate_did_attributes a ON a.did_account = w.public_key                 WHERE w.user_id = \(user) GROUP BY w.public_key, w.kind, w.created_at ORDER BY w.created_at, w.public_key
                """
            ).map { row in (try row.bytes("public_key"), try row.text("kind"), try row.int("attributes")) }
        }
        return try rows.map { publicKey, kind, attributes in
            DIDSummaryRepresentation(
                did: try did(publicKey),
                address: try SS58.encode(publicKey, prefix: ss58Prefix),
                walletKind: kind,
                attributes: Int(attributes)
            )
        }
    }
}

/// One of the caller's DIDs in `GET /dids`.
struct DIDSummaryRepresentation: Sendable, Codable, Equatable {
    var did: String
    /// The wallet's SS58 address.
    var address: String
    /// `custodial` (the hub signs its changes) or `external` (its holder signs them).
    var walletKind: String
    var attributes: Int
}

/// An attribute row.
struct DIDAttribute: Sendable, Hashable {
    static let columns: SQL = "did_account, name, value, validity, created, owner, updated_at, proof_hash"
    static let joinedColumns: SQL =
        "a.did_account, a.name, a.value, a.validity, a.created, a.owner, a.updated_at, a.proof_hash, p.call, p.signer, p.nonce, p.extrinsic"

    var didAccount: [UInt8]
    var name: [UInt8]
    var value: [UInt8]
    var validity: UInt64
    var created: UInt64
    var owner: [UInt8]
    var updatedAt: LedgerTimestamp
    var proofHash: [UInt8]

    init(
        didAccount: [UInt8],
        name: [UInt8],
        value: [UInt8],
        validity: UInt64,
        created: UInt64,
        owner: [UInt8],
        updatedAt: LedgerTimestamp,
        proofHash: [UInt8]
    ) {
        self.didAccount = didAccount
        self.name = name
        self.value = value
        self.validity = validity
        self.created = created
        self.owner = owner
        self.updatedAt = updatedAt
        self.proofHash = proofHash
    }

    init(_ row: SQLRow) throws {
        didAccount = try row.bytes("did_account")
        name = try row.bytes("name")
        value = try row.bytes("value")
        validity = UInt64(try row.int("validity"))
        created = UInt64(try row.int("created"))
        owner = try row.bytes("owner")
        updatedAt = try row.decode("updated_at")
        proofHash = try row.bytes("proof_hash")
    }
}

/// A change's signed extrinsic.
struct DIDProof: Sendable, Hashable {
    var hash: [UInt8]
    var call: String
    var signer: [UInt8]
    var nonce: UInt64
    var extrinsic: [UInt8]

    init(hash: [UInt8], call: String, signer: [UInt8], nonce: UInt64, extrinsic: [UInt8]) {
        self.hash = hash
        self.call = call
        self.signer = signer
        self.nonce = nonce
        self.extrinsic = extrinsic
    }

    /// From a row joined as ``DIDAttribute/joinedColumns``.
    init(_ row: SQLRow) throws {
        hash = try row.bytes("proof_hash")
        call = try row.text("call")
        signer = try row.bytes("signer")
        nonce = UInt64(try row.int("nonce"))
        extrinsic = try row.bytes("extrinsic")
    }
}

struct DIDProofRepresentation: Sendable, Codable, Equatable {
    /// `0x` + blake2-256 of the extrinsic.
    var hash: String
    /// `PeaqDid.<call>`.
    var call: String
    var signer: String
    var nonce: UInt64
    /// The signed extrinsic, `0x` + hex, as `author_submitExtrinsic` takes it.
    var extrinsic: String

    init(_ proof: DIDProof) {
        hash = "0x" + HexText.encode(proof.hash)
        call = DIDChain.pallet + "." + proof.call
        signer = "0x" + HexText.encode(proof.signer)
        nonce = proof.nonce
        extrinsic = "0x" + HexText.encode(proof.extrinsic)
    }
}

/// An attribute as the API shows it. `value` is the bytes as UTF-8 text when they are valid
/// UTF-8 (null otherwise); `value_hex` is always there.
struct DIDAttributeRepresentation: Sendable, Codable, Equatable {
    var did: String
    var name: String
    var value: String?
    var valueHex: String
    /// The block number the attribute is valid until: 4294967295 (`u32::MAX`) for forever.
    var validity: UInt64
    /// Whether the registry's current block is not past ``validity``.
    var valid: Bool
    /// Creation time in Unix milliseconds (the pallet's `Moment`), kept by updates.
    var created: UInt64
    var updatedAt: String
    var proof: DIDProofRepresentation

    init(_ attribute: DIDAttribute, did: String, currentBlock: UInt64, proof: DIDProofRepresentation) {
        self.did = did
        name = String(decoding: attribute.name, as: UTF8.self)
        value = String(validating: attribute.value, as: UTF8.self)
        valueHex = "0x" + HexText.encode(attribute.value)
        validity = attribute.validity
        valid = currentBlock <= attribute.validity
        created = attribute.created
        updatedAt = attribute.updatedAt.description
        self.proof = proof
    }

    var urlName: String { name.addingPercentEncodingForPath }
}

struct DIDRemovalRepresentation: Sendable, Codable, Equatable {
    var did: String
    var name: String
    var removed = true
    var proof: DIDProofRepresentation

    init(did: String, name: String, proof: DIDProofRepresentation) {
        self.did = did
        self.name = name
        self.proof = proof
    }
}

extension String {
    /// The text with every byte but unreserved ones percent-encoded, for a path segment.
    fileprivate var addingPercentEncodingForPath: String {
        var result = ""
        for byte in utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + HexText.encode([byte]).uppercased()
            }
        }
        return result
    }
}
