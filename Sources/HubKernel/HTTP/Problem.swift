import Foundation
public import HTTPTypes
public import Hummingbird
import NIOCore

/// An RFC 9457 problem: what every error response of the API is.
///
/// `code` is the stable, machine-readable part (clients switch on it); `title` is the short human
/// summary of the status and `detail` says what was wrong with this request. `field` names the
/// request member at fault when there is one.
public struct Problem: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var detail: String
    public var field: String?
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, detail: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(detail)" }

    /// The problem's `type` URI; a URN so it never points at a page that may not exist.
    public var type: String { "urn:hubd:problem:\(code)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = reply.response()
        for field in headers where field.name != .contentType { response.headers.append(field) }
        return response
    }

    /// The problem's `application/problem+json` body and status (without extra headers).
    public var reply: HTTPReply {
        var body = JSONWriter(capacity: 256)
        body.beginObject()
        body.field("type", type)
        body.field("title", status.reasonPhrase)
        body.key("status")
        body.int(status.code)
        body.field("detail", detail)
        body.field("code", code)
        if let field { body.field("field", field) }
        body.endObject()
        return HTTPReply(status: status.code, contentType: "application/problem+json", location: nil, body: Array(body.text.utf8))
    }
}

extension Problem {
    public static func notFound(_ what: String) -> Problem {
        Problem(.notFound, code: "not_found", detail: "No \(what) with that id, or you may not see it.")
    }

    public static func forbidden(_ detail: String) -> Problem {
        Problem(.forbidden, code: "forbidden", detail: detail)
    }

    public static func invalid(_ field: String, _ detail: String, code: String = "invalid_field") -> Problem {
        Problem(.unprocessableContent, code: code, detail: detail, field: field)
    }

    public static func badRequest(_ detail: String, code: String = "bad_request") -> Problem {
        Problem(.badRequest, code: code, detail: detail)
    }
}
