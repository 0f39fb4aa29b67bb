import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore

/// Turns every error a handler or inner middleware throws into a `problem+json` response.
///
/// It sits outermost (after metrics) so that nothing leaves the server as Hummingbird's plain-text
/// error: routing misses become `not_found`, oversize bodies `body_too_large`, decoding failures a
/// 400/422 naming the field. Anything unrecognised is a 500 with a request id to find in the log,
/// and never the error's own text, which could leak internals.
public struct ProblemMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Self.problem(for: error, context: context)
            return try problem.response(from: request, context: context)
        }
    }

    static func problem(for error: any Error, context: Context) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let tooMany as NIOTooManyBytesError:
            let limit = tooMany.maxBytes ?? HubJSON.maximumBodyBytes
            return Problem(.contentTooLarge, code: "body_too_large", detail: "The request body is larger than \(limit) bytes.")
        case let decoding as DecodingError:
            return problem(for: decoding)
        case let http as HTTPError:
            return problem(for: http)
        case let error as any HubError:
            return problem(for: error)
        default:
            if let unavailable = DatabaseUnavailable(error) {
                context.logger.warning("database unavailable", metadata: ["error": "\(unavailable.cause)"])
                return problem(for: unavailable)
            }
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return Problem(.internalServerError, code: "internal", detail: "The server failed to handle the request (request id \(context.id)).")
        }
    }

    /// Every domain error, by its kind: the one place HTTP statuses are chosen.
    static func problem(for error: any HubError) -> Problem {
        var headers: HTTPFields = [:]
        if error.kind == .unauthenticated { headers[.wwwAuthenticate] = "Bearer" }
        if let wait = error.retryAfter {
            // Whole seconds, rounded up: a client that waits what it is told is not refused again.
            let (seconds, attoseconds) = wait.components
            headers[.retryAfter] = String(max(1, seconds + (attoseconds > 0 ? 1 : 0)))
        } else if error.kind == .unavailable {
            headers[.retryAfter] = "1"
        }
        return Problem(.standard(error.kind.httpStatus), code: error.errorCode, detail: error.message, field: error.field, headers: headers)
    }

    private static func problem(for http: HTTPError) -> Problem {
        switch http.status {
        case .notFound:
            return Problem(.notFound, code: "not_found", detail: "No such route.")
        case .methodNotAllowed:
            return Problem(.methodNotAllowed, code: "method_not_allowed", detail: "This route does not accept that method.", headers: http.headers)
        default:
            let code = http.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            return Problem(http.status, code: code, detail: http.body ?? http.status.reasonPhrase, headers: http.headers)
        }
    }

    /// Syntax errors are the client's malformed JSON (400); a well-formed body with a missing,
    /// mistyped or invalid member is unprocessable (422) and names that member.
    private static func problem(for error: DecodingError) -> Problem {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return Problem(.badRequest, code: "malformed_json", detail: "The body is not valid JSON.")
        case .dataCorrupted(let context):
            return .invalid(path(context.codingPath), context.debugDescription)
        case .keyNotFound(let key, let context):
            return .invalid(path(context.codingPath + [key]), "This member is required.", code: "missing_field")
        case .valueNotFound(_, let context):
            return .invalid(path(context.codingPath), "This member must not be null.", code: "missing_field")
        case .typeMismatch(let type, let context):
            return .invalid(path(context.codingPath), "Expected \(describe(type)).")
        @unknown default:
            return Problem(.badRequest, code: "malformed_json", detail: "The body could not be read.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt32.Type, is UInt8.Type: "an integer"
        default: "a value of another type"
        }
    }

    /// `a.b[2].c` in the request's own `snake_case` spelling.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += snakeCase(key.stringValue)
            }
        }
        return text.isEmpty ? "body" : text
    }

    /// The decoder converts `snake_case` to camel case before keys reach here; convert back.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
