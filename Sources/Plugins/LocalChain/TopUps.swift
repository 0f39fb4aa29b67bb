import ChainKit
import HubKernel

/// The organiser's exchange between another kernel asset and a chain's currency: `pay` minor
/// units of `asset` buy `receive` minor units of the chain's currency, and cash-outs pay back at
/// the same rate from the collection account. Amounts that do not convert exactly are refused
/// (no rounding: money is exact).
struct TopUpRate: Sendable, Equatable {
    var asset: AssetCode
    var pay: UInt128
    var receive: UInt128
    var collectionAccountID: AccountID

    /// What `chainAmount` of the chain's currency costs in `asset`, or `nil` when it is not a whole
    /// number of minor units or overflows.
    func cost(of chainAmount: UInt128) -> UInt128? {
        let (product, overflow) = chainAmount.multipliedReportingOverflow(by: pay)
        guard !overflow, product % receive == 0 else { return nil }
        return product / receive
    }
}

/// One cash-out: the burn transaction's hash, the ledger hold that reserves its payout, and what
/// became of it (`pending` until the burn is sealed, then `paid` or `voided`).
struct CashOut: Sendable, Equatable {
    var hash: String
    var holdID: TransferID
    var payoutAccountID: AccountID
    var payAmount: UInt128
    var state: String
}

extension LocalChainStore {
    static func topUpRate(chainID: UInt64, on connection: any SQLConnection) throws -> TopUpRate? {
        guard
            let row = try connection.queryFirst(
                "SELECT asset, pay, receive, collection_account_id FROM localchain_topup_rates WHERE chain_id = \(Int64(clamping: chainID))"
            )
        else { return nil }
        guard let asset = AssetCode(try row.text("asset")), let id = UInt128(bigEndianBytes: try row.bytes("collection_account_id")) else {
            throw DatabaseError(.decode, "a localchain_topup_rates row is malformed")
        }
        return TopUpRate(
            asset: asset,
            pay: try row.uint128("pay"),
            receive: try row.uint128("receive"),
            collectionAccountID: AccountID(rawValue: id)
        )
    }

    static func setTopUpRate(_ rate: TopUpRate, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO localchain_topup_rates (chain_id, asset, pay, receive, collection_account_id) \
            VALUES (\(Int64(clamping: chainID)), \(rate.asset), \(rate.pay), \(rate.receive), \(rate.collectionAccountID)) \
            ON CONFLICT (chain_id) DO UPDATE SET asset = excluded.asset, pay = excluded.pay, receive = excluded.receive, \
            collection_account_id = excluded.collection_account_id
            """
        )
    }

    static func insert(_ cashOut: CashOut, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO localchain_cashouts (chain_id, hash, hold_id, payout_account_id, pay_amount, state) \
            VALUES (\(Int64(clamping: chainID)), \(cashOut.hash), \(cashOut.holdID), \(cashOut.payoutAccountID), \(cashOut.payAmount), \(cashOut.state))
            """
        )
    }

    static func cashOuts(chainID: UInt64, hashes: [String], on connection: any SQLConnection) throws -> [CashOut] {
        guard !hashes.isEmpty else { return [] }
        return try connection.selectIn(
            "SELECT hash, hold_id, payout_account_id, pay_amount, state FROM localchain_cashouts WHERE chain_id = \(Int64(clamping: chainID)) AND hash",
            keys: hashes
        ).map { row in
            guard let hold = UInt128(bigEndianBytes: try row.bytes("hold_id")),
                let payout = UInt128(bigEndianBytes: try row.bytes("payout_account_id"))
            else {
                throw DatabaseError(.decode, "a localchain_cashouts row is malformed")
            }
            return CashOut(
                hash: try row.text("hash"),
                holdID: TransferID(rawValue: hold),
                payoutAccountID: AccountID(rawValue: payout),
                payAmount: try row.uint128("pay_amount"),
                state: try row.text("state")
            )
        }
    }

    static func setCashOutState(_ state: String, hash: String, chainID: UInt64, on connection: any SQLConnection) throws {
        try connection.execute("UPDATE localchain_cashouts SET state = \(state) WHERE chain_id = \(Int64(clamping: chainID)) AND hash = \(hash)")
    }
}
