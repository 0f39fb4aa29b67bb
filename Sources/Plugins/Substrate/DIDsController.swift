import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/substrate/dids/{did}…`: DIDs (`did:peaq:<SS58>`) and their attributes in the hub's
/// own registry (``DIDRegistry``).
///
/// - `POST dids/{did}/attributes` `{"name", "value" | "value_hex", "valid_for"?}`: adds an
///   attribute; 201. `name` is UTF-8 text (at most 64 bytes); the value is `value`, UTF-8 text
///   stored as its bytes, or `value_hex`, hex bytes with or without 0x (exactly one of them);
///   `valid_for` is a number of blocks (absent or null: forever).
/// - `PUT dids/{did}/attributes/{name}` `{"value" | "value_hex", "valid_for"?}`: replaces value and
///   validity, keeps `created`.
/// - `DELETE dids/{did}/attributes/{name}`: removes it; answers the removal's proof.
/// - `GET dids/{did}`, `GET dids/{did}/attributes/{name}`: the DID's attributes, each with the
///   proof of its last change; readable by anyone signed in.
/// - `GET dids`: the caller's DIDs, one per wallet, with their attribute counts.
/// - DID documents and the W3C view of `GET dids/{did}`: ``DIDDocumentsController``.
/// - Changes the holder signs with their own wallet (external wallets): ``DIDChangesController``.
struct DIDsController: Sendable {
    let registry: DIDRegistry

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("dids/{did}/attributes", use: add)
        group.put("dids/{did}/attributes/{name}", use: update)
        group.delete("dids/{did}/attributes/{name}", use: remove)
        group.get("dids/{did}/attributes/{name}", use: show)
        group.get("dids/{did}", use: list)
        group.get("dids", use: mine)
        DIDDocumentsController(registry: registry).addRoutes(to: group)
        DIDChangesController(registry: registry).addRoutes(to: group)
    }

    /// The caller's DIDs, one per wallet (`{"data": [...]}`), with their attribute counts.
    @Sendable func mine(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        return try context.json(["data": try await registry.dids(of: principal.userID)])
    }

    struct AttributeRequest: Decodable {
        var name: String?
        var value: String?
        var valueHex: String?
        var validFor: UInt32?
    }

    /// A path segment percent-decoded: attribute names may hold any UTF-8 text.
    static func pathText(_ segment: String) throws -> String {
        guard let text = segment.removingPercentEncoding else {
            throw SubstrateError.invalidSuppliedValue("name", "The path is not valid percent-encoded UTF-8.")
        }
        return text
    }

    static func value(of body: AttributeRequest) throws -> [UInt8] {
        switch (body.value, body.valueHex) {
        case (let text?, nil):
            return Array(text.utf8)
        case (nil, let hex?):
            guard let bytes = HexText.decode(hex) else {
                throw SubstrateError.invalidSuppliedValue("value_hex", "value_hex is hex, with or without 0x.")
            }
            return bytes
        default:
            throw SubstrateError.invalidSuppliedValue("value", "Send the value as exactly one of value (UTF-8 text) and value_hex.")
        }
    }

    @Sendable func add(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try Self.pathText(context.parameters.require("did"))
        var request = request
        let body = try await request.decodeJSON(as: AttributeRequest.self, context: context)
        guard let name = body.name else { throw SubstrateError.invalidSuppliedValue("name", "An attribute has a name.") }
        let change = DIDRegistry.Change(
            kind: .addAttribute,
            did: did,
            name: Array(name.utf8),
            value: try Self.value(of: body),
            validFor: body.validFor
        )
        return try await registry.change(change, by: principal.userID)
    }

    @Sendable func update(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try Self.pathText(context.parameters.require("did"))
        let name = try Self.pathText(context.parameters.require("name"))
        var request = request
        let body = try await request.decodeJSON(as: AttributeRequest.self, context: context)
        if let bodyName = body.name, bodyName != name {
            throw SubstrateError.invalidSuppliedValue("name", "The body names another attribute than the path.")
        }
        let change = DIDRegistry.Change(
            kind: .updateAttribute,
            did: did,
            name: Array(name.utf8),
            value: try Self.value(of: body),
            validFor: body.validFor
        )
        return try await registry.change(change, by: principal.userID)
    }

    @Sendable func remove(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try Self.pathText(context.parameters.require("did"))
        let name = try Self.pathText(context.parameters.require("name"))
        let change = DIDRegistry.Change(kind: .removeAttribute, did: did, name: Array(name.utf8))
        return try await registry.change(change, by: principal.userID)
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let did = try Self.pathText(context.parameters.require("did"))
        let name = try Self.pathText(context.parameters.require("name"))
        guard let attribute = try await registry.attributes(of: did, name: Array(name.utf8)).first else {
            throw SubstrateError.attributeNotFound()
        }
        return try context.json(attribute)
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let did = try Self.pathText(context.parameters.require("did"))
        let view = try DIDDocumentsController.view(of: request)
        if view != .registry { return try await DIDDocumentsController(registry: registry).show(did, view: view) }
        let attributes = try await registry.attributes(of: did, name: nil)
        let account = try DIDRegistry.account(ofDID: did)
        return try context.json(DIDRepresentation(did: try registry.did(account), attributes: attributes))
    }
}

struct DIDRepresentation: Sendable, Encodable {
    var did: String
    var attributes: [DIDAttributeRepresentation]
}
