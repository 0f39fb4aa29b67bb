import HTTPTypes
public import Hummingbird

/// `/v1/webhooks`: endpoints (create, list, get, update, delete, rotate the secret), their
/// delivery attempts and status, and manual redelivery. Admins only: an endpoint receives every
/// event it subscribes to, which names accounts and users across the hub.
public struct WebhooksController: Sendable {
    let store: WebhookStore
    /// Wakes the dispatcher after a change that may make a delivery due (a new or re-enabled endpoint).
    let nudge: @Sendable () -> Void

    public init(store: WebhookStore, nudge: @escaping @Sendable () -> Void) {
        self.store = store
        self.nudge = nudge
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        v1.post("webhooks", use: create)
        v1.get("webhooks", use: list)
        v1.get("webhooks/{id}", use: get)
        v1.patch("webhooks/{id}", use: update)
        v1.delete("webhooks/{id}", use: delete)
        v1.post("webhooks/{id}/rotate-secret", use: rotateSecret)
        v1.get("webhooks/{id}/deliveries", use: deliveries)
        v1.post("webhooks/{id}/redeliver", use: redeliver)
    }

    private func admin(_ context: HubRequestContext, write: Bool) throws -> Principal {
        let principal = try context.requireScope(write ? .webhooksWrite : .webhooksRead)
        guard principal.isAdmin else { throw Problem.forbidden("Webhooks are managed by admins.") }
        return principal
    }

    private func endpointID(_ context: HubRequestContext) throws -> WebhookEndpointID {
        guard let id = WebhookEndpointID(try context.parameters.require("id")) else { throw Problem.notFound("webhook endpoint") }
        return id
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try admin(context, write: true)
        var request = request
        let body = try await request.decodeJSON(as: CreateWebhookRequest.self, context: context)
        let endpoint = try await store.create(
            NewWebhookEndpoint(
                url: body.url,
                description: body.description ?? "",
                eventTypes: body.eventTypes ?? [],
                enabled: body.enabled ?? true,
                createdBy: principal.userID.description,
                startAfterSequence: body.startAfterSequence
            )
        )
        nudge()
        return try context.json(WebhookEndpointRepresentation(endpoint), status: .created, headers: [.location: "/v1/webhooks/\(endpoint.id)"])
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: false)
        let endpoints = try await store.list()
        return try context.json(Page(data: endpoints.map { WebhookEndpointRepresentation($0) }, nextCursor: nil))
    }

    @Sendable func get(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: false)
        let id = try endpointID(context)
        let endpoint = try await store.get(id)
        let status = try await store.status(id)
        return try context.json(WebhookEndpointRepresentation(endpoint, status: status))
    }

    @Sendable func update(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: true)
        let id = try endpointID(context)
        var request = request
        let body = try await request.decodeJSON(as: UpdateWebhookRequest.self, context: context)
        let endpoint = try await store.update(
            id,
            WebhookEndpointUpdate(url: body.url, description: body.description, eventTypes: body.eventTypes, enabled: body.enabled)
        )
        nudge()
        return try context.json(WebhookEndpointRepresentation(endpoint))
    }

    @Sendable func delete(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: true)
        try await store.delete(try endpointID(context))
        return Response(status: .noContent)
    }

    struct RotateSecretRequest: Decodable {
        /// How long the previous secret keeps signing beside the new one (default a day).
        var overlapSeconds: Int64?
    }

    /// `{"overlap_seconds": N}` optional (an empty body keeps the default day).
    @Sendable func rotateSecret(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: true)
        var request = request
        let hasBody = request.headers[.contentLength].map { $0 != "0" } ?? (request.headers[.contentType] != nil)
        let body = hasBody ? try await request.decodeJSON(as: RotateSecretRequest.self, context: context) : RotateSecretRequest()
        let overlap = Duration.seconds(body.overlapSeconds ?? 24 * 3600)
        let endpoint = try await store.rotateSecret(try endpointID(context), overlap: overlap)
        return try context.json(WebhookEndpointRepresentation(endpoint))
    }

    /// Newest first; `?limit=&cursor=`, `?event_sequence=` for the attempts at one event.
    @Sendable func deliveries(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: false)
        let page = try await store.deliveries(
            endpointID: try endpointID(context),
            cursor: request.uri.queryParameters["cursor"].map(String.init),
            limit: try request.pageLimit(maximum: WebhookStore.maxPageSize),
            eventSequence: try request.query("event_sequence") { Int64($0) }
        )
        return try context.json(Page(data: page.deliveries.map(WebhookDeliveryRepresentation.init), nextCursor: page.nextCursor))
    }

    /// Sends one event to the endpoint again now, whatever happened to it before; the attempt is
    /// recorded as manual and the endpoint's place in the log does not move.
    @Sendable func redeliver(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try admin(context, write: true)
        let id = try endpointID(context)
        var request = request
        let body = try await request.decodeJSON(as: RedeliverRequest.self, context: context)
        let delivery = try await store.redeliver(endpointID: id, eventSequence: body.eventSequence)
        return try context.json(WebhookDeliveryRepresentation(delivery), status: .created)
    }
}

struct CreateWebhookRequest: Decodable, Sendable {
    var url: String
    var description: String?
    var eventTypes: [String]?
    var enabled: Bool?
    /// Deliver events after this sequence (default: only events appended from now on).
    var startAfterSequence: Int64?
}

struct UpdateWebhookRequest: Decodable, Sendable {
    var url: String?
    var description: String?
    var eventTypes: [String]?
    var enabled: Bool?
}

struct RedeliverRequest: Decodable, Sendable {
    var eventSequence: Int64
}

struct WebhookEndpointRepresentation: Encodable, Sendable {
    struct Status: Encodable, Sendable {
        var cursor: Int64
        var lag: Int64
        var nextAttemptAt: String?
        var consecutiveFailures: Int64
        var failedPermanently: Int64
    }

    var id: String
    var url: String
    var description: String
    var eventTypes: [String]
    var enabled: Bool
    var createdAt: String
    var updatedAt: String
    var createdBy: String?
    /// `whsec_…`: only in the answers to creation and rotation.
    var secret: String?
    /// In the answer to a rotation: until when the previous secret still signs too.
    var previousSecretExpiresAt: String?
    var status: Status?

    init(_ endpoint: WebhookEndpoint, status: WebhookEndpointStatus? = nil) {
        id = endpoint.id.description
        url = endpoint.url
        description = endpoint.description
        eventTypes = endpoint.eventTypes
        enabled = endpoint.enabled
        createdAt = endpoint.createdAt.description
        updatedAt = endpoint.updatedAt.description
        createdBy = endpoint.createdBy
        previousSecretExpiresAt = endpoint.previousSecretExpiresAt?.description
        secret = endpoint.secret
        self.status = status.map {
            Status(
                cursor: $0.cursor,
                lag: $0.lag,
                nextAttemptAt: $0.nextAttemptAt?.description,
                consecutiveFailures: $0.consecutiveFailures,
                failedPermanently: $0.failedPermanently
            )
        }
    }
}

struct WebhookDeliveryRepresentation: Encodable, Sendable {
    var id: String
    var eventSequence: Int64
    var eventId: String
    var eventType: String
    var attempt: Int
    var startedAt: String
    var durationMs: Int64
    var outcome: String
    var responseStatus: Int?
    var error: String?
    var manual: Bool
    var gaveUp: Bool

    init(_ delivery: WebhookDelivery) {
        id = String(delivery.id)
        eventSequence = delivery.eventSequence
        eventId = delivery.eventID
        eventType = delivery.eventType
        attempt = delivery.attempt
        startedAt = delivery.startedAt.description
        durationMs = delivery.durationMilliseconds
        outcome = delivery.outcome.rawValue
        responseStatus = delivery.responseStatus
        error = delivery.error
        manual = delivery.manual
        gaveUp = delivery.gaveUp
    }
}
