import HubKernel

/// The rail's events (`evm.*`), appended in the unit of work that makes the change. `subject` is
/// the account's address, the operation's id or the item's `chain:token id`.
enum EVMEvents {
    static let accountCreated = "evm.account.created"
    static let accountExported = "evm.account.exported"
    static let operationSubmitted = "evm.operation.submitted"
    static let operationConfirmed = "evm.operation.confirmed"
    static let operationFailed = "evm.operation.failed"
    static let contractDeployed = "evm.contract.deployed"
    static let itemMinted = "evm.item.minted"

    static let all = [accountCreated, accountExported, operationSubmitted, operationConfirmed, operationFailed, contractDeployed, itemMinted]

    struct AccountData: Encodable {
        var account: CustodialAccount

        init(_ account: CustodialAccount) { self.account = account }
    }

    struct OperationData: Encodable {
        var operation: Operation
    }

    struct ItemData: Encodable {
        var item: Item
        var operationId: String
    }
}
