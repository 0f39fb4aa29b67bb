import HTTPTypes
import HubKernel
import Hummingbird

/// Headers on every console response.
///
/// The policy allows scripts, styles and images from this origin only and no inline script or
/// style at all, so data that slips into a page can never run; `connect-src 'self'` keeps the
/// bearer token from being sent anywhere but this hub. Pages may not be framed (clickjacking on
/// the confirm buttons) and send no referrer (URLs carry account ids).
struct ConsoleSecurityHeaders: RouterMiddleware {
    typealias Context = HubRequestContext

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xFrameOptions] = "DENY"
        return response
    }
}
