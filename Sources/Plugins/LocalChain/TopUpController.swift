import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// Top-ups and cash-outs under `/v1/rails/localchain/chains/{id}`: the organiser sets the rate
/// and the collection account; attendees (hub users) buy chain currency from one of their wallets
/// and cash it back out to one.
struct TopUpController: Sendable {
    let context: PluginContext
    let service: ChainService
    let chains: ChainController

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.put("chains/{id}/topup-rate", use: setRate)
        group.get("chains/{id}/topup-rate", use: getRate)
        group.post("chains/{id}/topups", use: topUp)
        group.post("chains/{id}/cashouts", use: cashOut)
    }

    struct RateBody: Codable, Sendable {
        var asset: String
        var pay: MinorUnits
        var receive: MinorUnits
        var collectionAccountId: String
    }

    @Sendable func setRate(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chains.manageableChain(context)
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: RateBody.self, context: context)
        guard let code = AssetCode(body.asset), let asset = try await self.context.ledger.asset(code), code != chain.asset else {
            throw Problem.invalid("asset", "No such asset (and not the chain's own).", code: "asset_not_found")
        }
        guard body.pay.value > 0 else { throw Problem.invalid("pay", "At least 1 minor unit.") }
        guard body.receive.value > 0 else { throw Problem.invalid("receive", "At least 1 minor unit.") }
        // The organiser collects into their own account, or an organisation/system account of an
        // asset they organise (admins: of any asset): never somebody else's wallet, which would
        // pay cash-outs out of a stranger's money.
        guard let id = AccountID(body.collectionAccountId), let account = try await self.context.ledger.account(id),
            account.owner == .user(principal.userID.description)
                || (account.owner.kind != .user && (principal.isAdmin || asset.organiserID == principal.userID.description))
        else {
            throw Problem.invalid("collection_account_id", "No such account, or you may not collect into it.", code: "account_not_found")
        }
        // Cash-outs are paid from it: one that may go negative would pay money nobody put in.
        guard account.flags.contains(.debitsMustNotExceedCredits), account.rail == nil else {
            throw Problem.invalid(
                "collection_account_id",
                "A collection account must not go negative (flag debits_must_not_exceed_credits) and must not belong to a rail.",
                code: "collection_account_may_go_negative"
            )
        }
        guard account.asset == asset.code else {
            throw Problem.invalid("collection_account_id", "The account holds \(account.asset), not \(asset.code).", code: "asset_mismatch")
        }
        let rate = TopUpRate(asset: asset.code, pay: body.pay.value, receive: body.receive.value, collectionAccountID: account.id)
        try await service.setTopUpRate(rate, chainID: chain.chainID)
        return try context.json(Self.body(rate))
    }

    @Sendable func getRate(_ request: Request, context: HubRequestContext) async throws -> Response {
        let chain = try await chains.chain(context)
        guard let rate = try await service.topUpRate(chainID: chain.chainID) else {
            throw ChainServiceError.noTopUpRate(.notFound)
        }
        return try context.json(Self.body(rate))
    }

    static func body(_ rate: TopUpRate) -> RateBody {
        RateBody(
            asset: rate.asset.rawValue,
            pay: MinorUnits(rate.pay),
            receive: MinorUnits(rate.receive),
            collectionAccountId: rate.collectionAccountID.description
        )
    }

    struct TopUpBody: Decodable {
        var id: String?
        var to: String
        var amount: MinorUnits
        var fromAccountId: String
    }

    struct Receipt: Encodable, Sendable {
        var hash: String
        var amount: String
        var paid: String
        var asset: String
    }

    /// A member pays from their own wallet; the grant is queued in the same transaction.
    @Sendable func topUp(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let chain = try await chains.chain(context)
        var request = request
        let body = try await request.decodeJSON(as: TopUpBody.self, context: context)
        guard let to = try? EthereumAddress(body.to), to != chain.validator else {
            throw Problem.invalid("to", "Expected an address (0x and 40 hex digits) other than the validator's.")
        }
        guard body.amount.value > 0 else { throw Problem.invalid("amount", "At least 1 minor unit.", code: "amount_must_not_be_zero") }
        let transferID =
            try body.id.map { text in
                guard let id = TransferID(text), id.rawValue != 0 else { throw Problem.invalid("id", "Expected a non-zero UUID.") }
                return id
            } ?? .timeOrdered()
        let payer = try await ownAccount(body.fromAccountId, field: "from_account_id", principal: principal)
        let (hash, cost, rate) = try await service.topUp(
            chainID: chain.chainID,
            to: to,
            amount: body.amount.value,
            payer: payer.id,
            transferID: transferID
        )
        return try context.json(
            Receipt(hash: hash, amount: String(body.amount.value), paid: String(cost), asset: rate.asset.rawValue),
            status: .accepted
        )
    }

    struct CashOutBody: Decodable {
        var raw: String
        var payoutAccountId: String
        /// The burn sender's `personal_sign` over ``CashOutAuthorisation/message(chainID:transactionHash:payout:)``.
        var payoutSignature: String
    }

    /// A member sends a signed transfer to the validator, names their own wallet for the payout,
    /// and proves with a second signature of the same key that the burn's owner chose that wallet.
    @Sendable func cashOut(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let chain = try await chains.chain(context)
        var request = request
        let body = try await request.decodeJSON(as: CashOutBody.self, context: context)
        guard let raw = try? Hex.decode(body.raw) else { throw Problem.invalid("raw", "Expected the signed transaction as 0x hex.") }
        guard let payoutSignature = try? Hex.decode(body.payoutSignature), payoutSignature.count == 65 else {
            throw Problem.invalid("payout_signature", "Expected a 65-byte personal_sign signature as 0x hex.")
        }
        let payout = try await ownAccount(body.payoutAccountId, field: "payout_account_id", principal: principal)
        if let rate = try await service.topUpRate(chainID: chain.chainID), payout.asset != rate.asset {
            throw Problem.invalid("payout_account_id", "The account holds \(payout.asset); cash-outs pay \(rate.asset).", code: "asset_mismatch")
        }
        let (hash, pay, rate) = try await service.cashOut(chainID: chain.chainID, raw: raw, payout: payout.id, payoutSignature: payoutSignature)
        let value = try ValidatedTransaction.validate(raw, chainID: chain.chainID).value
        return try context.json(Receipt(hash: hash, amount: String(value), paid: String(pay), asset: rate.asset.rawValue), status: .accepted)
    }

    func ownAccount(_ text: String, field: String, principal: Principal) async throws -> Account {
        guard let id = AccountID(text), let account = try await context.ledger.account(id),
            principal.isAdmin || account.owner == .user(principal.userID.description)
        else { throw Problem.invalid(field, "No such account, or it is not yours.", code: "account_not_found") }
        return account
    }
}
