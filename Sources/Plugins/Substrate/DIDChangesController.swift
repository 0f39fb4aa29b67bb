import HubKernel
import Hummingbird

/// DID changes signed by the DID's holder with their own wallet (``DIDRegistry/prepare(_:by:)``):
/// the way to change a DID whose wallet is external.
///
/// - `POST dids/{did}/changes/prepare` `{"call", "name", "value" | "value_hex", "valid_for"?}`:
///   what to sign (`message`; `payload` for wallets that hash long payloads themselves) and the
///   `nonce`; changes nothing. `call` is `add_attribute`, `update_attribute` or `remove_attribute`
///   (which takes no value).
/// - `POST dids/{did}/changes` with the same fields plus `nonce` and `signature` (sr25519, 64
///   bytes hex): the change, as `POST`/`PUT`/`DELETE …/attributes` answer it. 409 `nonce_stale`
///   when another change went first; 422 `invalid_signature`.
struct DIDChangesController: Sendable {
    let registry: DIDRegistry

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("dids/{did}/changes/prepare", use: prepare)
        group.post("dids/{did}/changes", use: submit)
    }

    struct ChangeRequest: Decodable {
        var call: String?
        var name: String?
        var value: String?
        var valueHex: String?
        var validFor: UInt32?
        var nonce: UInt64?
        var signature: String?
    }

    @Sendable func prepare(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (change, _) = try await Self.change(request, context: context)
        return try context.json(try await registry.prepare(change, by: principal.userID))
    }

    @Sendable func submit(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (change, body) = try await Self.change(request, context: context)
        guard let nonce = body.nonce else {
            throw SubstrateError.invalidSuppliedValue("nonce", "Send the nonce that POST …/changes/prepare answered.")
        }
        guard let text = body.signature, let signature = HexText.decode(text) else {
            throw SubstrateError.changeSignatureInvalid("signature is the sr25519 signature of the prepared message, in hex.")
        }
        return try await registry.change(change, by: principal.userID, holderSignature: .init(nonce: nonce, signature: signature))
    }

    /// The change a request's body describes, for the DID of the path.
    static func change(_ request: Request, context: HubRequestContext) async throws -> (DIDRegistry.Change, ChangeRequest) {
        let did = try DIDsController.pathText(context.parameters.require("did"))
        var request = request
        let body = try await request.decodeJSON(as: ChangeRequest.self, context: context)
        guard let text = body.call, let kind = DIDCall.Kind(rawValue: text), kind != .readAttribute else {
            throw SubstrateError.invalidSuppliedValue("call", "call is add_attribute, update_attribute or remove_attribute.")
        }
        guard let name = body.name else { throw SubstrateError.invalidSuppliedValue("name", "An attribute has a name.") }
        var value: [UInt8]?
        switch kind {
        case .addAttribute, .updateAttribute:
            value = try DIDsController.value(of: .init(name: name, value: body.value, valueHex: body.valueHex, validFor: body.validFor))
        case .removeAttribute, .readAttribute:
            guard body.value == nil, body.valueHex == nil, body.validFor == nil else {
                throw SubstrateError.invalidSuppliedValue("value", "remove_attribute takes no value or valid_for.")
            }
        }
        return (DIDRegistry.Change(kind: kind, did: did, name: Array(name.utf8), value: value, validFor: body.validFor), body)
    }
}
