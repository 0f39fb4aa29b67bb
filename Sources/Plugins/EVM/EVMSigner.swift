import ChainKit
import Foundation
import HubKernel
import Hummingbird

/// Who signs a user's transactions on a chain: the hub, with the user's custodial key (or the
/// platform's), or the user's own wallet, which they signed in with (Sign-In with Ethereum): then
/// the hub prepares each transaction, the wallet signs it and the client submits the raw bytes
/// (``PreparedTransactions``).
enum EVMSigner: Sendable {
    case custodial(address: EthereumAddress, key: [UInt8])
    case wallet(address: EthereumAddress)

    var address: EthereumAddress {
        switch self {
        case .custodial(let address, _), .wallet(let address): address
        }
    }
}

/// What a write answers: the operation the hub sent, or the transaction it prepared for the
/// caller's wallet to sign.
enum EVMWriteResult: Sendable {
    case sent(EVMOperation)
    case prepared(PreparedTransaction)
}

extension CustodialAccounts {
    /// How `user` signs on `chain`: their custodial account if they have one; else the Ethereum
    /// wallet they signed in with; else, when `opening`, a custodial account opened now.
    func signer(user: UserID, chain: String, opening: Bool = false) async throws -> EVMSigner {
        if try await find(user: user, chain: chain) == nil {
            let links = try await context.identity.wallets.links(for: user)
            if let link = links.first(where: { $0.scheme == EthereumSignIn.schemeName }), let address = try? EthereumAddress(link.address) {
                return .wallet(address: address)
            }
            guard opening else { throw EVMError.accountNotFound("on chain \(chain)") }
            _ = try await account(for: user, on: chain)
        }
        let (account, key) = try await privateKey(user: user, chain: chain)
        return .custodial(address: try EthereumAddress(account.address), key: key)
    }
}

extension HubRequestContext {
    /// 202 with the operation sent, or 200 with the transaction prepared for the caller's wallet.
    func answer(_ dispatch: EVMWriteResult) throws -> Response {
        switch dispatch {
        case .sent(let operation):
            return try json(operation, status: .accepted, headers: [.location: "/v1/rails/evm/operations/\(operation.id)"])
        case .prepared(let prepared):
            return try json(prepared, status: .ok)
        }
    }
}
