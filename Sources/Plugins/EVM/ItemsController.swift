import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/evm/items…` and `/v1/rails/evm/operations/{id}`: minting, the catalogue and each
/// item's provenance, and the state of the transactions the rail sent.
struct ItemsController: Sendable {
    let items: ItemsService

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("items", use: mint)
        group.get("items", use: list)
        group.get("items/{chain}/{token}", use: show)
        group.get("operations", use: operations)
        group.get("operations/{id}", use: operation)
    }

    struct MintRequest: Decodable {
        var chain: String?
        var title: String
        var description: String?
        var category: String
        var uri: String?
        var images: [String]?
        var delivery: String?
    }

    /// 202 with the mint's operation: the item appears when the operation is confirmed.
    @Sendable func mint(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: MintRequest.self, context: context)
        let operation = try await items.mint(
            ItemsService.NewItem(
                chain: body.chain,
                title: body.title,
                description: body.description ?? "",
                category: body.category,
                uri: body.uri,
                images: body.images ?? [],
                delivery: body.delivery
            ),
            by: principal.userID
        )
        return try context.answer(operation)
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let limit = try request.pageLimit()
        let list = try await items.items(
            category: request.uri.queryParameters["category"].map(String.init),
            owner: request.uri.queryParameters["owner"].map(String.init),
            limit: limit
        )
        return try context.json(["data": list])
    }

    struct ItemRepresentation: Encodable {
        var item: Item
        var provenance: [ProvenanceEntry]
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        guard let chain = context.parameters.get("chain"), let token = context.storedID("token"),
            let item = try await items.item(chain: chain, tokenID: token)
        else { throw EVMError(kind: .notFound, errorCode: "item_not_found", message: "No such item.") }
        return try context.json(ItemRepresentation(item: item, provenance: try await items.provenance(of: item)))
    }

    /// The caller's operations, newest first; an admin's view is everyone's.
    @Sendable func operations(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let list = try await items.operations(of: principal.isAdmin ? nil : principal.userID, limit: try request.pageLimit())
        return try context.json(["data": list])
    }

    @Sendable func operation(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        guard let id = context.parameters.get("id"), let operation = try await items.operation(id),
            operation.userId == principal.userID.description || principal.isAdmin
        else { throw EVMError(kind: .notFound, errorCode: "operation_not_found", message: "No such operation of yours.") }
        return try context.json(operation)
    }
}
