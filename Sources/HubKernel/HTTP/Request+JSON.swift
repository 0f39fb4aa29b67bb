import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore

extension Request {
    /// Decodes the JSON body, refusing anything that is not declared as JSON (415) or is larger than
    /// the context's limit (413). Decoding errors become 400/422 problems in ``ProblemMiddleware``.
    public mutating func decodeJSON<Value: Decodable>(as type: Value.Type, context: HubRequestContext) async throws -> Value {
        guard Self.isJSON(headers[.contentType]) else {
            throw Problem(
                .unsupportedMediaType,
                code: "unsupported_media_type",
                detail: "Send the body as `Content-Type: application/json`."
            )
        }
        let buffer = try await collectBody(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else {
            throw Problem(.badRequest, code: "malformed_json", detail: "The body is empty; a JSON object is expected.")
        }
        if Self.containsEscapedNUL(buffer.readableBytesView) {
            throw Problem.invalid(
                "body",
                "Text may not contain the NUL character (\\u0000): storage would cut it there.",
                code: "nul_character"
            )
        }
        do {
            return try StrictDecoding.decode(Value.self, from: buffer.readableBytesView)
        } catch let unknown as StrictDecoding.UnknownMembers {
            throw Problem.invalid(unknown.field, "The body has \(unknown); see the operation's schema.", code: "unknown_field")
        }
    }

    /// Whether the JSON text has a `\u0000` escape. Raw NUL bytes are invalid JSON already; the
    /// escape is valid JSON but neither SQLite's C strings nor PostgreSQL's text can hold the
    /// character, so a value would be stored cut short (and a retry would differ). Escapes are
    /// walked in pairs so that `\\u0000` (a backslash, then the text "u0000") is not mistaken.
    static func containsEscapedNUL(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "\\") else { continue }
            guard let escaped = iterator.next() else { return false }
            guard escaped == UInt8(ascii: "u") else { continue }
            var digits: [UInt8] = []
            for _ in 0..<4 { if let digit = iterator.next() { digits.append(digit) } }
            if digits == Array("0000".utf8) { return true }
        }
        return false
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// A query parameter parsed by `parse`, or a 422 naming the parameter when it does not parse.
    public func query<Value>(_ name: String, _ parse: (String) -> Value?) throws -> Value? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let value = parse(String(raw)) else {
            throw Problem.invalid(name, "The query parameter `\(name)` is not valid.")
        }
        return value
    }

    /// `?limit=` within `1...maximum`, `defaultLimit` when absent.
    public func pageLimit(default defaultLimit: Int = 50, maximum: Int = 500) throws -> Int {
        try query("limit") { Int($0).flatMap { (1...maximum).contains($0) ? $0 : nil } } ?? defaultLimit
    }
}

extension HubRequestContext {
    /// Encodes `value` as the JSON response with `status`.
    public func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let data = try responseEncoder.encodeBytes(value)
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// One page of a list: `{ "data": [...], "next_cursor": "..." }` (DESIGN §3.6). `next_cursor` is
/// `null` on the last page; clients pass it back as `?cursor=` unchanged.
public struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
    public var data: [Item]
    public var nextCursor: String?

    public init(data: [Item], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }

    private enum CodingKeys: String, CodingKey { case data, nextCursor }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
        // Encoded explicitly so that the last page says `null` instead of leaving the member out.
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
