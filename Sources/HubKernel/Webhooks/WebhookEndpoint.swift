/// Identifies a webhook endpoint: a random UUID, stored as its text form.
public struct WebhookEndpointID: LedgerIdentifier {
    public let rawValue: UInt128
    public init(rawValue: UInt128) { self.rawValue = rawValue }

    /// Endpoint ids are stored as their UUID text (the table is read by people too), not as the
    /// 16 bytes other ledger identifiers bind as: `\(id)` in a statement binds this text, and
    /// reading a column as `WebhookEndpointID` parses it.
    public var sqlValue: SQLValue { .text(description) }

    public init(row: SQLRow, _ index: Int) throws {
        let text = try row.text(index)
        guard let id = WebhookEndpointID(text) else { throw DatabaseError(.decode, "column \(index): '\(text)' is not an endpoint id") }
        self = id
    }
}

/// A URL that receives the hub's events, signed with its own secret.
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: WebhookEndpointID
    public var url: String
    public var description: String
    /// Event types delivered (exact, or a prefix ending in `.*`); empty means every type.
    public var eventTypes: [String]
    /// Disabled endpoints keep their place in the log and receive nothing until enabled again;
    /// then they catch up, in order, on what was appended meanwhile.
    public var enabled: Bool
    public var createdAt: LedgerTimestamp
    public var updatedAt: LedgerTimestamp
    /// Who created it (a user or API-key id), when the caller knows.
    public var createdBy: String?
    /// The signing secret (`whsec_…`). Only ``WebhookStore/create(_:)`` and
    /// ``WebhookStore/rotateSecret(_:)`` return it; reads leave it `nil`, so a listing can be shown
    /// to anyone allowed to see the endpoints without handing out the means to forge events.
    public var secret: String?
    /// After a rotation, until when the previous secret still signs (beside the new one).
    public var previousSecretExpiresAt: LedgerTimestamp? = nil

    public init(
        id: WebhookEndpointID,
        url: String,
        description: String,
        eventTypes: [String],
        enabled: Bool,
        createdAt: LedgerTimestamp,
        updatedAt: LedgerTimestamp,
        createdBy: String?,
        secret: String?
    ) {
        self.id = id
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.createdBy = createdBy
        self.secret = secret
    }
}

/// What a caller provides to create an endpoint.
public struct NewWebhookEndpoint: Sendable, Equatable {
    public var url: String
    public var description: String
    public var eventTypes: [String]
    public var enabled: Bool
    public var createdBy: String?
    /// Deliver events after this sequence number. `nil` (the default) starts at the current end of
    /// the log, so the endpoint receives what is appended after it was created; `0` replays the
    /// whole log.
    public var startAfterSequence: Int64?

    public init(
        url: String,
        description: String = "",
        eventTypes: [String] = [],
        enabled: Bool = true,
        createdBy: String? = nil,
        startAfterSequence: Int64? = nil
    ) {
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.createdBy = createdBy
        self.startAfterSequence = startAfterSequence
    }
}

/// A partial change to an endpoint: `nil` fields stay as they are.
public struct WebhookEndpointUpdate: Sendable, Equatable {
    public var url: String?
    public var description: String?
    public var eventTypes: [String]?
    public var enabled: Bool?

    public init(url: String? = nil, description: String? = nil, eventTypes: [String]? = nil, enabled: Bool? = nil) {
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.enabled = enabled
    }
}
