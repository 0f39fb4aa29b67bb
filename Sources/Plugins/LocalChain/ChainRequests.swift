import HubKernel

/// The client ids of grants and top-ups, with what each queued: the idempotency of the rail's
/// writes that the chain itself cannot deduplicate.
///
/// A grant or a top-up makes the validator sign a new transaction with the next nonce, so sending
/// the same request twice would grant twice. With an `id`, the first request records the hash it
/// queued; a retry with the same id and the same fields answers that first result, and the same id
/// with other fields is refused naming the field that differs.
struct ChainRequest: Sendable, Equatable {
    enum Kind: String, Sendable {
        case grant, topup
    }

    var kind: Kind
    var id: String
    /// The request's fields in a canonical form (`to`, `amount`, …), compared on a retry.
    var fields: [String: String]
    var hash: String
}

extension LocalChainStore {
    static func request(_ kind: ChainRequest.Kind, id: String, chainID: UInt64, on connection: any SQLConnection) throws -> ChainRequest? {
        try connection.queryFirst(
            "SELECT fields, hash FROM localchain_requests WHERE chain_id = \(Int64(clamping: chainID)) AND kind = \(kind.rawValue) AND request_id = \(id)"
                + .forUpdate(connection.dialect)
        ).map { row in
            ChainRequest(kind: kind, id: id, fields: try LocalChainJSON.stringMap(try row.text("fields")), hash: try row.text("hash"))
        }
    }

    static func insert(_ request: ChainRequest, chainID: UInt64, on connection: any SQLConnection) throws {
        let fields = try LocalChainJSON.text(request.fields)
        try connection.execute(
            """
            INSERT INTO localchain_requests (chain_id, kind, request_id, fields, hash) \
            VALUES (\(Int64(clamping: chainID)), \(request.kind.rawValue), \(request.id), \(fields), \(request.hash))
            """
        )
    }
}

extension ChainRequest {
    /// The first field (sorted by name) in which a retry differs from the recorded request.
    func firstDifference(from fields: [String: String]) -> String? {
        Set(self.fields.keys).union(fields.keys).sorted().first { self.fields[$0] != fields[$0] }
    }
}

extension LocalChainMigrations {
    /// Grants' and top-ups' client ids (``ChainRequest``).
    static let requests = Migration(
        "010_requests",
        portable: """
            CREATE TABLE localchain_requests (
                chain_id {bigint} NOT NULL REFERENCES localchain_chains (chain_id),
                kind TEXT NOT NULL,
                request_id TEXT NOT NULL,
                fields TEXT NOT NULL,
                hash TEXT NOT NULL,
                PRIMARY KEY (chain_id, kind, request_id)
            );
            """
    )
}
