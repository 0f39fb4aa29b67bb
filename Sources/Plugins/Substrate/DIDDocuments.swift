import HTTPTypes
import HubKernel
import Hummingbird

/// DID documents in the registry (``DIDRegistry``): a ``PeaqDIDDocument`` kept as the value of
/// one of the DID's attributes, as peaq's SDKs keep it, so every change is an ordinary attribute
/// change (`add_attribute` / `update_attribute`, signed, proof kept, `substrate.did.attribute_*`
/// event) and peaq's SDK reads the value as its own.
///
/// A DID's document is the attribute whose value decodes as a document whose `id` names the DID
/// (any SS58 prefix); the hub names the one it writes after the DID itself (at most 59 bytes, in
/// the pallet's 64), and if several attributes hold one, that name wins, then the newest.
extension DIDRegistry {
    /// `POST /dids`: a document for one of the caller's wallets.
    struct NewDocument: Sendable {
        var account: [UInt8]
        /// The attribute's name; nil: the DID itself.
        var name: [UInt8]?
        var services: [PeaqDIDDocument.Service]
        var signature: PeaqDIDDocument.Signature?
    }

    /// Writes the document of a wallet's DID: its sr25519 key as `#keys-1` (and authentication),
    /// the services and signature given. 201 with the DID's resolution (``DIDResolution``).
    func createDocument(_ request: NewDocument, by user: UserID) async throws -> Response {
        let (change, document) = try await documentChange(request)
        let did = change.did
        return try await self.change(change, by: user) { result in
            try DIDResolution.reply(result, document: document, status: .created, location: "/v1/rails/substrate/dids/\(did)")
        }
    }

    /// What the holder of an external wallet signs to write its DID's document: the document the
    /// hub would write (``createDocument(_:by:)``), as a prepared `add_attribute` whose name and
    /// value they submit with the signature (`POST …/dids/{did}/changes`). Changes nothing.
    func prepareDocument(_ request: NewDocument, by user: UserID) async throws -> PreparedDIDChangeRepresentation {
        try await prepare(try await documentChange(request).change, by: user)
    }

    /// The `add_attribute` that writes `request`'s document, checked.
    private func documentChange(_ request: NewDocument) async throws -> (change: Change, document: PeaqDIDDocument) {
        try PeaqDIDDocument.validate(services: request.services)
        if let signature = request.signature { try PeaqDIDDocument.validate(signature: signature) }
        let did = try did(request.account)
        let name = request.name ?? Array(did.utf8)
        try Self.checkName(name)
        // One document per DID: a second (under another name) would leave readers to guess.
        if let existing = try await documents(of: request.account).first, existing.attribute.name != name {
            throw SubstrateError.didDocumentExists(String(decoding: existing.attribute.name, as: UTF8.self))
        }
        let document = PeaqDIDDocument(did: did, sr25519Key: request.account, services: request.services, signature: request.signature)
        return (Change(kind: .addAttribute, did: did, name: name, value: document.attributeValue), document)
    }

    /// What the holder signs to add (`service`) or remove (`removing`) a service of their DID's
    /// document: the `update_attribute` with the document as it would be after, from the document
    /// as it is now. If the document changes before they submit, so does the key's nonce, and the
    /// submission is `nonce_stale`.
    func prepareServiceChange(of did: String, adding service: PeaqDIDDocument.Service?, removing id: String?, by user: UserID) async throws
        -> PreparedDIDChangeRepresentation
    {
        if let service { try service.validate(field: "service") }
        let account = try Self.account(ofDID: did)
        guard let found = try await documents(of: account).first else { throw SubstrateError.didDocumentNotFound() }
        var document = found.document
        if let service {
            guard !document.services.contains(where: { $0.id == service.id }) else { throw SubstrateError.serviceAlreadyExist(service.id) }
            document.services.append(service)
            try PeaqDIDDocument.validate(services: document.services)
        }
        if let id {
            guard let index = document.services.firstIndex(where: { $0.id == id }) else { throw SubstrateError.serviceNotFound(id) }
            document.services.remove(at: index)
        }
        let change = Change(kind: .updateAttribute, did: try self.did(account), name: found.attribute.name, value: document.attributeValue)
        return try await prepare(change, by: user)
    }

    /// Adds a service to the DID's document (`update_attribute`). 201 with the DID's resolution.
    func addService(_ service: PeaqDIDDocument.Service, to did: String, by user: UserID) async throws -> Response {
        try service.validate(field: "service")
        return try await rewriteDocument(of: did, by: user, status: .created) { document in
            guard !document.services.contains(where: { $0.id == service.id }) else { throw SubstrateError.serviceAlreadyExist(service.id) }
            document.services.append(service)
            try PeaqDIDDocument.validate(services: document.services)
        }
    }

    /// Removes the service `id` from the DID's document (`update_attribute`).
    func removeService(_ id: String, from did: String, by user: UserID) async throws -> Response {
        try await rewriteDocument(of: did, by: user, status: .ok) { document in
            guard let index = document.services.firstIndex(where: { $0.id == id }) else { throw SubstrateError.serviceNotFound(id) }
            document.services.remove(at: index)
        }
    }

    /// `update_attribute` of the document with `edit` applied to the value read under the lock.
    private func rewriteDocument(
        of did: String,
        by user: UserID,
        status: HTTPResponse.Status,
        _ edit: @escaping @Sendable (inout PeaqDIDDocument) throws -> Void
    ) async throws -> Response {
        let account = try Self.account(ofDID: did)
        // Who may change it is the registry's rule (the owner), checked in the change itself;
        // a DID with no document is a 404 to everyone alike.
        guard let found = try await documents(of: account).first else { throw SubstrateError.didDocumentNotFound() }
        let shownDID = try self.did(account)
        var change = Change(kind: .updateAttribute, did: shownDID, name: found.attribute.name)
        change.rewrite = { current in
            // The value as it is now, locked: it must still be this DID's document.
            guard let current, var document = PeaqDIDDocument(attributeValue: current),
                (try? Self.account(ofDID: document.id)) == account
            else { throw SubstrateError.didDocumentInvalid() }
            try edit(&document)
            return document.attributeValue
        }
        return try await self.change(change, by: user) { result in
            guard case .written(let shown, _) = result, let value = HexText.decode(shown.valueHex),
                let document = PeaqDIDDocument(attributeValue: value)
            else { throw DIDProofError(message: "the document written does not read back") }
            return try DIDResolution.reply(result, document: document, status: status, location: nil)
        }
    }

    /// The DID's document with the attribute holding it and that attribute's last proof.
    struct StoredDocument: Sendable {
        var document: PeaqDIDDocument
        var attribute: DIDAttribute
        var proof: DIDProof
    }

    /// The attributes of `account` that hold its document, the preferred first (see the type's
    /// comment); empty when it has none.
    func documents(of account: [UInt8]) async throws -> [StoredDocument] {
        let preferred = Array(try did(account).utf8)
        let found = try await context.database.read { connection in
            try connection.query(
                "SELECT " + DIDAttribute.joinedColumns
                    + " FROM substrate_did_attributes a JOIN substrate_did_proofs p ON p.hash = a.proof_hash WHERE a.did_account = \(account)"
            ).compactMap { row -> StoredDocument? in
                let attribute = try DIDAttribute(row)
                guard let document = PeaqDIDDocument(attributeValue: attribute.value), (try? Self.account(ofDID: document.id)) == account else {
                    return nil
                }
                return StoredDocument(document: document, attribute: attribute, proof: try DIDProof(row))
            }
        }
        return found.sorted { left, right in
            if (left.attribute.name == preferred) != (right.attribute.name == preferred) { return left.attribute.name == preferred }
            return left.attribute.updatedAt > right.attribute.updatedAt
        }
    }

    /// The DID resolved as W3C DID Core describes it, from its document.
    /// - Throws: `did_document_not_found` when the DID has no document.
    func resolve(_ did: String) async throws -> DIDResolution {
        let account = try Self.account(ofDID: did)
        guard let stored = try await documents(of: account).first else { throw SubstrateError.didDocumentNotFound() }
        let proofHash = stored.proof.hash
        let anchoredBlock = try await context.database.read { try DIDAnchors.finalizedBlock(of: proofHash, on: $0) }
        return DIDResolution(
            document: stored.document,
            attribute: stored.attribute,
            proof: DIDProofRepresentation(stored.proof),
            anchoredBlock: anchoredBlock
        )
    }
}
