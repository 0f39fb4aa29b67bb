import HubKernel

/// The rail's events (`evm.*`), appended in the unit of work that makes the change. `subject` is
/// the account's address, the item's or listing's id.
enum EVMEvents {
    static let accountCreated = "evm.account.created"
    static let accountExported = "evm.account.exported"

    static let all = [accountCreated, accountExported]

    struct AccountData: Encodable {
        var account: CustodialAccount

        init(_ account: CustodialAccount) { self.account = account }
    }
}
