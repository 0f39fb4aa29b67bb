import ChainKit
import HubKernel

/// Anchoring the changes of external wallets, whose keys the hub does not hold: their anchors
/// wait as `holder_signature_required` until the holder signs the node's payload.
///
/// ``prepare(_:by:)`` reads the node now (runtime, the signer's nonce there, a mortal era from the
/// finalized head) and answers what to sign; ``submit(_:_:by:)`` rebuilds that extrinsic from the
/// nonce and era sent back, checks the signature, and stores it `submitted`, after which the
/// anchorer sends and tracks it like one it signed itself. If it can no longer be included (its
/// era ended unsent), the anchor goes back to waiting for the holder.
struct HolderAnchors: Sendable {
    let context: PluginContext
    let reader: NodeReader?
    let offlineChain: DIDChain
    let ss58Prefix: UInt16

    /// Which era, nonce and signature a holder sends back.
    struct Signed: Sendable {
        var nonce: UInt64
        var eraPeriod: UInt64
        var eraBirth: UInt64
        var signature: [UInt8]
    }

    func prepare(_ proofHash: [UInt8], by user: UserID) async throws -> PreparedAnchorRepresentation {
        let reader = try requireReader()
        let anchor = try await awaitingSignature(proofHash, of: user)
        let call = try DIDCall(offlineChain.verify(anchor.proof))
        let signer = try SS58.encode(anchor.signer, prefix: ss58Prefix)
        return try await reader.read { node, metadata in
            let target = try await NodeTarget.load(node, metadata: metadata)
            let nonce = try await node.accountNextIndex(signer)
            let mortality = try await target.mortality(node)
            let payload = try target.chain.payload(call, nonce: nonce, mortality: mortality.signing)
            return PreparedAnchorRepresentation(
                proofHash: "0x" + HexText.encode(proofHash),
                signer: signer,
                call: DIDChain.pallet + "." + call.kind.rawValue,
                nonce: nonce,
                eraPeriod: mortality.era.period ?? 0,
                eraBirth: mortality.birth,
                payload: "0x" + HexText.encode(payload.bytes),
                message: "0x" + HexText.encode(payload.message),
                genesisHash: "0x" + HexText.encode(target.chain.genesisHash),
                specVersion: target.chain.version.specVersion,
                transactionVersion: target.chain.version.transactionVersion
            )
        }
    }

    func submit(_ proofHash: [UInt8], _ signed: Signed, by user: UserID) async throws -> DIDAnchorRepresentation {
        let reader = try requireReader()
        let anchor = try await awaitingSignature(proofHash, of: user)
        guard signed.signature.count == 64 else {
            throw SubstrateError.changeSignatureInvalid("An sr25519 signature is 64 bytes, not \(signed.signature.count).")
        }
        guard Era.periods.contains(signed.eraPeriod), signed.eraPeriod.nonzeroBitCount == 1,
            let era = try? Era(period: signed.eraPeriod, phase: signed.eraBirth % signed.eraPeriod)
        else { throw SubstrateError.invalid("era_period", "era_period is a power of two from 4 to 65536, as prepare answered it.") }
        let call = try DIDCall(offlineChain.verify(anchor.proof))
        let signer = anchor.signer
        let extrinsic: [UInt8] = try await reader.read { node, metadata in
            let target = try await NodeTarget.load(node, metadata: metadata)
            guard let birthHash = try await node.blockHash(signed.eraBirth) else {
                throw SubstrateError.invalid("era_birth", "The node has no block \(signed.eraBirth): send the era_birth prepare answered.")
            }
            let mortality = DIDChain.Mortality(era: era, birthBlockHash: birthHash)
            let payload = try target.chain.payload(call, nonce: signed.nonce, mortality: mortality)
            guard Sr25519.verify(signed.signature, message: payload.message, publicKey: signer) else {
                throw SubstrateError.changeSignatureInvalid(
                    "The signature is not the DID key's over the node's payload for nonce \(signed.nonce) and this era: sign what prepare answered."
                )
            }
            return try target.chain.assemble(call, signer: signer, nonce: signed.nonce, signature: signed.signature, mortality: mortality).bytes
        }
        let prefix = ss58Prefix
        let stored = try await context.write { unit in
            let changed = try unit.connection.execute(
                """
                UPDATE substrate_did_anchors SET status = \(DIDAnchors.Status.submitted.rawValue), extrinsic = \(extrinsic), \
                extrinsic_hash = \(blake2b256(extrinsic)), nonce = \(Int64(signed.nonce)), era_birth = \(Int64(signed.eraBirth)), \
                era_period = \(Int64(signed.eraPeriod)), block_hash = NULL, block_number = NULL, error = NULL, \
                signings = signings + 1, updated_at = \(unit.now) \
                WHERE proof_hash = \(proofHash) AND status = \(DIDAnchors.Status.holderSignatureRequired.rawValue)
                """
            )
            guard changed == 1, let stored = try DIDAnchors.anchor(proofHash, on: unit.connection) else {
                throw SubstrateError.anchorNotAwaitingSignature()
            }
            return stored
        }
        return DIDAnchorRepresentation(stored, did: "did:peaq:" + (try SS58.encode(stored.didAccount, prefix: prefix)))
    }

    /// The anchor `proofHash` of one of `user`'s DIDs, waiting for its holder's signature.
    private func awaitingSignature(_ proofHash: [UInt8], of user: UserID) async throws -> DIDAnchor {
        let found = try await context.database.read { try DIDAnchors.anchor(proofHash, ownedBy: user, on: $0) }
        guard let found else { throw SubstrateError.anchorNotFound() }
        guard found.status == .holderSignatureRequired else { throw SubstrateError.anchorNotAwaitingSignature() }
        return found
    }

    private func requireReader() throws -> NodeReader {
        guard let reader else { throw SubstrateError.nodeNotConfigured() }
        return reader
    }
}

/// `POST /anchors/{proof_hash}/prepare`'s answer: the node's payload for the change, and the
/// nonce and era to send back with its signature.
struct PreparedAnchorRepresentation: Sendable, Codable, Equatable {
    var proofHash: String
    /// The SS58 address whose key signs (the DID's).
    var signer: String
    var call: String
    var nonce: UInt64
    var eraPeriod: UInt64
    var eraBirth: UInt64
    /// `call ‖ extra ‖ additional signed` for the node (what polkadot.js and substrate-interface sign).
    var payload: String
    /// The exact bytes the key signs: ``payload``, or its blake2b-256 when longer than 256 bytes.
    var message: String
    var genesisHash: String
    var specVersion: UInt32
    var transactionVersion: UInt32
}
