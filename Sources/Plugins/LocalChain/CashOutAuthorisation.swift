import ChainKit
package import HubKernel

/// What an attendee signs, besides the burn transaction itself, to say where a cash-out pays.
///
/// The burn (a transfer to the validator) names no payout account: it is a plain chain transfer.
/// If the payout were the submitter's choice, anybody holding a copy of somebody's signed burn
/// (a relay, a shoulder-surfer, the next person at the counter) could submit it with their own
/// account and be paid. So the sender also signs, with `personal_sign` (EIP-191, which every
/// Ethereum wallet offers), a short text naming the chain, the burn's hash and the payout
/// account; the hub pays only the account the burn's own sender named.
package enum CashOutAuthorisation {
    /// The text the sender signs: readable in a wallet's signing prompt, exact to the byte.
    package static func message(chainID: UInt64, transactionHash: String, payout: AccountID) -> String {
        "hubd cash-out\nchain: \(chainID)\ntransaction: \(transactionHash)\npayout account: \(payout)"
    }

    /// Checks that `signature` (65 bytes, r ‖ s ‖ v) is the burn's sender's over ``message``.
    /// - Throws: ``TransactionRejection`` `payout_not_authorised` otherwise.
    static func verify(_ signature: [UInt8], burn: ValidatedTransaction, chainID: UInt64, payout: AccountID) throws {
        let text = message(chainID: chainID, transactionHash: burn.hashHex, payout: payout)
        let signer = try? PersonalSign.recover(Array(text.utf8), signature: signature)
        guard let signer, signer == burn.sender else {
            throw TransactionRejection(
                "payout_not_authorised",
                "payout_signature must be the burn sender's personal_sign over: \(text.debugDescription)"
            )
        }
    }
}
