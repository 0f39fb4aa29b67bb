import Hummingbird

/// `?limit=` of the rail's lists: 50 when absent, 1 to `maximum` when given.
enum QueryLimit {
    static func limit(_ request: Request, maximum: Int) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return 50 }
        guard let limit = Int(String(text)), (1...maximum).contains(limit) else {
            throw SubstrateError.invalid("limit", "limit is 1 to \(maximum).")
        }
        return limit
    }
}
