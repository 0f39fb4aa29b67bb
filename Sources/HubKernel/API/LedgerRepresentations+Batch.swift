/// The answer to a batch: one result per transfer, in order.
struct BatchResultRepresentation: Encodable, Sendable {
    struct Item: Encodable, Sendable {
        var index: Int
        /// `created`, `exists` or `failed`.
        var status: String
        var transfer: TransferRepresentation?
        var error: ErrorRepresentation?
    }

    struct ErrorRepresentation: Encodable, Sendable {
        var code: String
        var detail: String
        var field: String?
    }

    var results: [Item]

    init(_ results: [TransferResult]) {
        self.results = results.enumerated().map { index, result in
            switch result {
            case .created(let t): Item(index: index, status: "created", transfer: TransferRepresentation(t))
            case .exists(let t): Item(index: index, status: "exists", transfer: TransferRepresentation(t))
            case .failed(let e):
                Item(index: index, status: "failed", error: ErrorRepresentation(code: e.code.rawValue, detail: e.message, field: e.field))
            }
        }
    }
}

struct WalletRepresentation: Encodable, Sendable {
    var account: AccountRepresentation
    var recent: [TransferRepresentation]
}

struct WalletsRepresentation: Encodable, Sendable {
    var userId: String
    var wallets: [WalletRepresentation]
}
