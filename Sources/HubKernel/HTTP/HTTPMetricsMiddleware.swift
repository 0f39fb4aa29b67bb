import Dispatch
import HTTPTypes
public import Hummingbird
public import Metrics

/// Counts requests and times them by route template, method and status, through the factory it is
/// given (the server passes its Prometheus registry's; nothing global is bootstrapped, so tests
/// can build many applications in one process).
///
/// It sits outside ``ProblemMiddleware``, so errors are counted with the status the client saw.
public struct HTTPMetricsMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext
    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        // Unmatched paths share one label so that scanners cannot blow up the series count.
        let route = context.endpointPath ?? "unmatched"
        let dimensions = [
            ("route", route), ("method", request.method.rawValue), ("status", String(response.status.code)),
        ]
        Counter(label: "hub_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Metrics.Timer(label: "hub_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
        return response
    }
}
