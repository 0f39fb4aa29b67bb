import ChainKit
import HubKernel

/// DID changes signed by their holder: the way for a DID whose wallet is external (the hub holds
/// no key for it), open to custodial ones too.
///
/// ``prepare(_:by:)`` answers the `PeaqDid` extrinsic's signing payload for the key's next nonce,
/// without changing anything; the holder signs it with their wallet and submits the change with
/// that nonce and signature (``change(_:by:holderSignature:reply:)``),
/// which checks the nonce is still the next one and the signature verifies before it records the
/// change exactly as a custodial one (proof, attribute, event, one unit).
extension DIDRegistry {
    /// What the DID's key signs to make `change` as `user`'s next change. Checks what can be
    /// checked now (the DID is `user`'s, the name, the attribute to add is absent or to change is
    /// present), so a change that would be refused is not signed in vain.
    func prepare(_ change: Change, by user: UserID) async throws -> PreparedDIDChangeRepresentation {
        guard change.kind != .readAttribute else { throw SubstrateError.invalidSuppliedValue("call", "read_attribute is a read.") }
        let account = try Self.account(ofDID: change.did)
        try Self.checkName(change.name)
        let registry = self
        let prefix = ss58Prefix
        return try await context.database.read { connection in
            guard let wallet = try SubstrateWallets.wallet(account, on: connection, forUpdate: false), wallet.userID == user else {
                throw SubstrateError.attributeAuthorizationFailed()
            }
            _ = try Self.attribute(change, account: account, signer: account, on: connection, lock: false)
            let nonce = try Self.nonce(of: account, on: connection)
            let call = DIDCall(kind: change.kind, didAccount: account, name: change.name, value: change.value, validFor: change.validFor)
            let payload = try registry.chain.payload(call, nonce: nonce)
            return PreparedDIDChangeRepresentation(
                did: try registry.did(account),
                signer: try SS58.encode(account, prefix: prefix),
                call: change.kind.rawValue,
                name: String(decoding: change.name, as: UTF8.self),
                valueHex: change.value.map { "0x" + HexText.encode($0) },
                nonce: nonce,
                payload: "0x" + HexText.encode(payload.bytes),
                message: "0x" + HexText.encode(payload.message),
                callData: "0x" + HexText.encode(payload.call.encoded),
                genesisHash: "0x" + HexText.encode(registry.chain.genesisHash),
                specVersion: registry.chain.version.specVersion,
                transactionVersion: registry.chain.version.transactionVersion
            )
        }
    }
}

/// `POST …/dids/{did}/changes/prepare`'s answer: what to sign, and the nonce to submit with it.
struct PreparedDIDChangeRepresentation: Sendable, Codable, Equatable {
    var did: String
    /// The SS58 address whose key signs (the DID's).
    var signer: String
    var call: String
    /// The attribute's name and the value the change writes (none for a removal): what to
    /// submit with the signature (the hub made the value of a DID document's change).
    var name: String
    var valueHex: String?
    var nonce: UInt64
    /// The signing payload, `call ‖ extra ‖ additional signed`, as substrate-interface and
    /// polkadot.js build it (they sign its blake2b-256 when it is longer than 256 bytes).
    var payload: String
    /// The exact bytes the sr25519 key signs: ``payload``, or its blake2b-256 when longer than 256 bytes.
    var message: String
    var callData: String
    /// The registry's genesis (32 zero bytes, no chain's): the proof cannot be replayed on peaq.
    var genesisHash: String
    var specVersion: UInt32
    var transactionVersion: UInt32
}
