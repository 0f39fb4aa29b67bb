import Foundation
public import HTTPTypes
public import Hummingbird
import NIOCore

/// A response as plain bytes: what a unit of work answers an HTTP request with, and what an
/// `Idempotency-Key` keeps to replay. Built synchronously, so a unit can build it on the writer's
/// thread and record it in the same transaction as its writes.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var location: String?
    public var body: [UInt8]
    /// Whether the reply must not be kept anywhere (`Cache-Control: no-store`), as one carrying
    /// key material: an `Idempotency-Key` does not record it, so a retry runs the request again.
    public var noStore: Bool

    public init(status: Int, contentType: String?, location: String?, body: [UInt8], noStore: Bool = false) {
        self.status = status
        self.contentType = contentType
        self.location = location
        self.body = body
        self.noStore = noStore
    }

    /// `value` as the API's JSON (`snake_case`), with `status` and a `Location` when given.
    public static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, location: String? = nil) throws -> HTTPReply {
        HTTPReply(status: status.code, contentType: "application/json", location: location, body: try HubJSON.encoder.encodeBytes(value))
    }

    /// The Hummingbird response; `replayed` adds `Idempotency-Replayed: true`, ``noStore``
    /// `Cache-Control: no-store`.
    public func response(replayed: Bool = false) -> Response {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        if let location { headers[.location] = location }
        if noStore { headers[.cacheControl] = "no-store" }
        if replayed { headers[.idempotencyReplayed] = "true" }
        return Response(status: .standard(status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension HTTPResponse.Status {
    /// The status with its standard reason phrase (`Status(code:)` alone leaves the phrase empty,
    /// and a problem's `title` is that phrase).
    static func standard(_ code: Int) -> HTTPResponse.Status {
        standardByCode[code] ?? HTTPResponse.Status(code: code)
    }

    /// Built once: every reply looks its status up here.
    private static let standardByCode: [Int: HTTPResponse.Status] = Dictionary(
        uniqueKeysWithValues: [
            .ok, .created, .accepted, .noContent, .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .conflict, .gone,
            .contentTooLarge, .unsupportedMediaType, .unprocessableContent, .tooManyRequests, .internalServerError, .serviceUnavailable,
        ].map { (status: HTTPResponse.Status) in (status.code, status) }
    )
}
