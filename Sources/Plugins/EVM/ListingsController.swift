import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// `/v1/rails/evm/listings…` and `/v1/rails/evm/withdrawals`: escrow, auction and direct sale
/// listings, the actions on them, and collecting what the marketplace owes. Every write answers
/// 202 with its operation.
struct ListingsController: Sendable {
    let listings: ListingsService
    let accounts: CustodialAccounts
    let chains: EVMChains

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("listings", use: create)
        group.get("listings", use: list)
        group.get("listings/{chain}/{id}", use: show)
        group.post("listings/{chain}/{id}/{action}", use: act)
        group.get("withdrawals", use: pending)
        group.post("withdrawals", use: withdraw)
    }

    struct CreateRequest: Decodable {
        var kind: String
        var chain: String?
        var tokenId: UInt64
        /// Decimal text of the chain's smallest unit (up to 2^256 − 1).
        var price: String
        var endTime: UInt64?
    }

    static func amount(_ text: String, field: String) throws -> UInt256 {
        guard !text.isEmpty, text.count <= 78, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let value = try? UInt256(decimal: text) else {
            throw EVMError.invalid(field, "\(field) is a whole number of the chain's smallest unit, as decimal text.")
        }
        return value
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateRequest.self, context: context)
        guard let kind = Listing.Kind(rawValue: body.kind) else { throw EVMError.invalid("kind", "A listing's kind is escrow, auction or sale.") }
        let operation = try await listings.create(
            ListingsService.NewListing(
                kind: kind,
                chain: body.chain,
                tokenID: body.tokenId,
                price: try Self.amount(body.price, field: "price"),
                endTime: body.endTime
            ),
            by: principal.userID
        )
        return try context.answer(operation)
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let found = try await listings.listings(
            kind: request.uri.queryParameters["kind"].map(String.init),
            state: request.uri.queryParameters["state"].map(String.init),
            limit: try request.pageLimit()
        )
        return try context.json(["data": found])
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        guard let chain = context.parameters.get("chain"), let id = context.storedID("id"),
            let listing = try await listings.listing(chain: chain, id: id)
        else { throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No such listing.") }
        return try context.json(listing)
    }

    struct ActionRequest: Decodable {
        /// A bid's amount (decimal text); other actions send what the contract asks.
        var amount: String?
    }

    @Sendable func act(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard let chain = context.parameters.get("chain"), let id = context.storedID("id") else {
            throw EVMError(kind: .notFound, errorCode: "listing_not_found", message: "No such listing.")
        }
        guard let action = context.parameters.get("action").flatMap(ListingsService.Action.init(rawValue:)) else {
            let known = ListingsService.Action.allCases.map(\.rawValue).joined(separator: ", ")
            throw EVMError(kind: .notFound, errorCode: "unknown_action", message: "A listing's actions are \(known).")
        }
        var request = request
        let body = try await request.decodeJSON(as: ActionRequest.self, context: context)
        let operation = try await listings.act(
            action,
            chain: chain,
            listingID: id,
            amount: try body.amount.map { try Self.amount($0, field: "amount") },
            by: principal.userID
        )
        return try context.answer(operation)
    }

    @Sendable func pending(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let chain = try chains.settings(request.uri.queryParameters["chain"].map(String.init))
        guard let account = try await accounts.find(user: principal.userID, chain: chain.id) else {
            return try context.json(["chain": chain.id, "amount": "0"])
        }
        let amount = try await listings.pendingWithdrawal(chain: chain.id, address: try EthereumAddress(account.address))
        return try context.json(["chain": chain.id, "address": account.address, "amount": amount])
    }

    struct WithdrawRequest: Decodable {
        var chain: String?
    }

    @Sendable func withdraw(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: WithdrawRequest.self, context: context)
        let operation = try await listings.withdraw(chain: body.chain, by: principal.userID)
        return try context.answer(operation)
    }
}
