import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/substrate/dids…`: DID documents (``DIDRegistry/createDocument(_:by:)``) and the
/// W3C view of `GET dids/{did}`.
///
/// - `POST dids` `{"address", "name"?, "services"?, "signature"?}`: writes the document of the
///   caller's wallet `address` (SS58, 0x key or its `did:peaq:` DID) as the attribute `name`
///   (default: the DID); 201 with the DID resolution result.
/// - `POST dids/{did}/services` `{"id", "type", "service_endpoint"?, "data"?}`: adds a service; 201.
/// - `DELETE dids/{did}/services/{id}`: removes one (`id` percent-encoded: `#` is `%23`).
/// - For an external wallet, whose holder signs: `POST dids/prepare`, `POST dids/{did}/services/prepare`
///   and `POST dids/{did}/services/{id}/removal/prepare` take the same input and answer the change
///   to sign (``DIDRegistry/prepare(_:by:)``'s answer with the document's `name` and `value_hex`),
///   submitted as any holder-signed change (`POST dids/{did}/changes`).
/// - `GET dids/{did}` with `Accept: application/did+ld+json` or `?format=did-document`: the W3C
///   DID document alone; with `Accept: application/ld+json;profile="https://w3id.org/did-resolution"`
///   or `?format=did-resolution`: the resolution result with the document's metadata. Otherwise
///   the registry's JSON (``DIDsController/list(_:context:)``).
struct DIDDocumentsController: Sendable {
    let registry: DIDRegistry

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("dids", use: create)
        group.post("dids/prepare", use: prepareCreate)
        group.post("dids/{did}/services", use: addService)
        group.post("dids/{did}/services/prepare", use: prepareAddService)
        group.delete("dids/{did}/services/{id}", use: removeService)
        group.post("dids/{did}/services/{id}/removal/prepare", use: prepareRemoveService)
    }

    struct CreateRequest: Decodable {
        var address: String?
        var name: String?
        var services: [PeaqDIDDocument.Service]?
        var signature: PeaqDIDDocument.Signature?
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        return try await registry.createDocument(try await Self.newDocument(request, context: context), by: principal.userID)
    }

    @Sendable func prepareCreate(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        return try context.json(try await registry.prepareDocument(try await Self.newDocument(request, context: context), by: principal.userID))
    }

    @Sendable func prepareAddService(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try DIDsController.pathText(context.parameters.require("did"))
        var request = request
        let service = try await request.decodeJSON(as: PeaqDIDDocument.Service.self, context: context)
        return try context.json(try await registry.prepareServiceChange(of: did, adding: service, removing: nil, by: principal.userID))
    }

    @Sendable func prepareRemoveService(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try DIDsController.pathText(context.parameters.require("did"))
        let id = try DIDsController.pathText(context.parameters.require("id"))
        return try context.json(try await registry.prepareServiceChange(of: did, adding: nil, removing: id, by: principal.userID))
    }

    /// The document `POST dids` (or its prepare) asks for.
    static func newDocument(_ request: Request, context: HubRequestContext) async throws -> DIDRegistry.NewDocument {
        var request = request
        let body = try await request.decodeJSON(as: CreateRequest.self, context: context)
        guard let address = body.address else {
            throw SubstrateError.invalidSuppliedValue("address", "Name the wallet whose DID gets the document: address.")
        }
        let account: [UInt8]
        do {
            account = try DIDRegistry.account(ofDID: address.hasPrefix("did:") ? address : "did:peaq:" + address)
        } catch let error as SubstrateError {
            throw SubstrateError.invalidAddress("address", error.message)
        }
        return DIDRegistry.NewDocument(
            account: account,
            name: body.name.map { Array($0.utf8) },
            services: body.services ?? [],
            signature: body.signature
        )
    }

    @Sendable func addService(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try DIDsController.pathText(context.parameters.require("did"))
        var request = request
        let service = try await request.decodeJSON(as: PeaqDIDDocument.Service.self, context: context)
        return try await registry.addService(service, to: did, by: principal.userID)
    }

    @Sendable func removeService(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let did = try DIDsController.pathText(context.parameters.require("did"))
        let id = try DIDsController.pathText(context.parameters.require("id"))
        return try await registry.removeService(id, from: did, by: principal.userID)
    }

    /// Which view of a DID the client asked for.
    enum View: Sendable, Equatable {
        case registry, document, resolution
    }

    /// The view `?format=` names, else the first media type of `Accept` that has one.
    static func view(of request: Request) throws -> View {
        if let format = request.uri.queryParameters.get("format") {
            switch format {
            case "did-document": return .document
            case "did-resolution": return .resolution
            case "registry": return .registry
            default:
                throw SubstrateError.invalid("format", "format is did-document, did-resolution or registry.")
            }
        }
        for range in (request.headers[.accept] ?? "").split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first ?? "" {
            case "application/did+ld+json": return .document
            case "application/ld+json" where parts.dropFirst().contains(where: { $0.contains("w3id.org/did-resolution") }):
                return .resolution
            case "application/json": return .registry
            default: continue
            }
        }
        return .registry
    }

    /// `GET dids/{did}` in a W3C view.
    func show(_ did: String, view: View) async throws -> Response {
        let resolution = try await registry.resolve(did)
        let (contentType, body) =
            view == .document
            ? (DIDResolution.documentContentType, resolution.documentBytes) : (DIDResolution.resultContentType, resolution.resultBytes)
        return HTTPReply(status: 200, contentType: contentType, location: nil, body: body).response()
    }
}
