import HubKernel

/// The Gotchu server's request and response bodies, member for member (`specs/rails.md` §5.2).
/// Its JSON is `snake_case` already, which the kernel's encoder writes from these camel-case
/// names. Amounts are integer cents of the configured asset, as the app sends and expects them.
enum GotchuShapes {
    struct DevLoginRequest: Decodable { var email: String? }
    struct DevLoginResponse: Encodable {
        var token: String
        var userId: String
    }

    /// An integer as Gotchu's body carries it: anything else (a string, a fraction, a value
    /// beyond PostgreSQL's bigint) is kept as "invalid" so the handler answers `invalid amount`
    /// instead of a decoding problem.
    struct Cents: Decodable {
        var value: Int64?
        init(from decoder: any Decoder) throws {
            value = try? decoder.singleValueContainer().decode(Int64.self)
        }
    }

    struct CreateRequest: Decodable {
        var amountCents: Cents?
        var splitMode: String?
        var maxPayers: Int?
    }
    struct CreateResponse: Encodable {
        var sid: String
        var eid: String
        var expAt: String
    }

    struct ResolveRequest: Decodable { var eid: String? }
    struct ResolveResponse: Encodable {
        struct PayeeDisplay: Encodable { var name: String }
        var sid: String
        var amountCents: Int64
        var payeeDisplay: PayeeDisplay
    }

    struct SessionRequest: Decodable { var sid: String? }
    struct OK: Encodable { var ok = true }
    struct SendResponse: Encodable {
        var ok = true
        var newBalanceCents: Int64
    }

    struct Wallet: Encodable {
        struct Entry: Encodable {
            var type: String
            var direction: String
            /// A string, as Gotchu's PostgreSQL driver returns `bigint`.
            var amountCents: String
            var refType: String
            var refId: String?
            var createdAt: String
        }
        var walletId: String
        var availableCents: Int64
        var recent: [Entry]
    }

    struct Failure: Encodable { var error: String }
}
