public import Hummingbird
import NIOCore

/// The JSON conventions of the API (DESIGN §3.6): `snake_case` members, no floats for money.
enum HubJSON {
    /// The largest request body accepted, 1 MiB: a 10,000-transfer batch fits with room to spare.
    static let maximumBodyBytes = 1 << 20

    static let decoder = HubJSONDecoder()

    /// Keys sorted: the same value always encodes to the same bytes, so a reply recorded with an
    /// `Idempotency-Key` inside a unit of work equals the one the handler sends.
    static let encoder = HubJSONEncoder()
}

extension HubJSONEncoder: ResponseEncoder {
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encodeBytes(value)))
        )
    }
}

extension HubJSONDecoder: RequestDecoder {
    /// Hummingbird's `request.decode(as:context:)`: strict, like ``Request/decodeJSON(as:context:)``.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer = try await request.body.collect(upTo: HubJSON.maximumBodyBytes)
        return try StrictDecoding.decode(type, from: buffer.readableBytesView)
    }
}
