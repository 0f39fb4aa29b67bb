/// A rail's page in the admin console, described as data so the console can draw any rail's page
/// without knowing the rail: a title, a summary, links to its endpoints, and **lists** — tables
/// backed by the rail's own `GET` endpoints under `/v1/rails/<id>`, with typed columns and an
/// optional detail view per row.
///
/// ```swift
/// AdminPanel(
///     title: "BLE sessions",
///     summary: "Proximity payment sessions and their locks.",
///     lists: [
///         .init(
///             id: "sessions", title: "Sessions", path: "/sessions",
///             columns: [
///                 .init("id", title: "Session", kind: .link),
///                 .init("amount", title: "Amount", kind: .amount),  // formatted with the row's `asset`
///                 .init("status", title: "Status", kind: .status),
///                 .init("created_at", title: "Opened", kind: .time),
///             ],
///             detail: .init(path: "/sessions/{id}", fields: [.init("payee.display_name", title: "Payee")])
///         )
///     ]
/// )
/// ```
///
/// A detail view may also show **related lists** (a chain's blocks, read from a path templated
/// from the detail object) and **actions** (forms that `POST` to the rail's own routes, confirmed,
/// each submission with a fresh `Idempotency-Key`). ``validate()`` checks a panel's ids, paths and
/// placeholders; the plugin host refuses to start a rail whose panel fails it.
///
/// The console sends the signed-in user's bearer token, so the rail's own authorisation applies.
/// It reads the list endpoint's answer as a page (`{"data": [...], "next_cursor": ...}`, following
/// the cursor with `?cursor=` on "Load more") or as a bare array.
public struct AdminPanel: Sendable, Equatable, Codable {
    /// A link to one of the rail's endpoints, shown under the summary.
    public struct Link: Sendable, Equatable, Codable {
        public var title: String
        /// A path under `/v1/rails/<id>`, e.g. `/sessions`.
        public var path: String
        public init(title: String, path: String) {
            self.title = title
            self.path = path
        }
    }

    /// One table of the panel.
    public struct List: Sendable, Equatable, Codable {
        /// Names the list within the panel (the console's URL fragment): lower-case letters,
        /// digits and `-`.
        public var id: String
        public var title: String
        /// The `GET` endpoint under `/v1/rails/<id>` that answers the rows, e.g. `/sessions`.
        public var path: String
        public var columns: [Column]
        /// What a click on a row (or a `.link` column) shows.
        public var detail: Detail?

        public init(id: String, title: String, path: String, columns: [Column], detail: Detail? = nil) {
            self.id = id
            self.title = title
            self.path = path
            self.columns = columns
            self.detail = detail
        }
    }

    /// One column of a list, or one field of a detail view.
    public struct Column: Sendable, Equatable, Codable {
        /// How the console formats a value.
        public enum Kind: String, Sendable, Codable, CaseIterable {
            /// As it is (numbers and booleans as their JSON text).
            case text
            /// A string of minor units, shown with the decimal point of the asset named by
            /// ``Column/assetKey`` in the same row. Never converted to a floating-point number.
            case amount
            /// An RFC 3339 time, shown in the viewer's time zone.
            case time
            /// A short state word (`open`, `paid`, `expired`), shown as a badge.
            case status
            /// Opens the list's detail view for the row (or, with ``Column/link``, a console page).
            case link
            /// Image ids (one, or a list), shown as thumbnails read with the viewer's token from the
            /// rail's `GET` path in ``Column/link``, where `{value}` is replaced by each id, e.g.
            /// `/images/{value}`.
            case images
        }

        /// A dotted path into one row's JSON object: `amount`, `payee.display_name`.
        public var key: String
        public var title: String
        public var kind: Kind
        /// For `.amount`: the key path of the row's asset code. `asset` when not given.
        public var assetKey: String?
        /// For `.link`: a console path starting with `/admin/`, where `{value}` is replaced by the
        /// (URL-encoded) value, e.g. `/admin/transfers?id={value}`. The row's detail view when not given.
        /// For `.images`: the rail's path of one image, e.g. `/images/{value}`.
        public var link: String?

        public init(_ key: String, title: String, kind: Kind = .text, assetKey: String? = nil, link: String? = nil) {
            self.key = key
            self.title = title
            self.kind = kind
            self.assetKey = assetKey
            self.link = link
        }
    }

    /// The detail view of one row.
    public struct Detail: Sendable, Equatable, Codable {
        /// The `GET` endpoint under `/v1/rails/<id>` of one row; each `{key.path}` is replaced by the
        /// URL-encoded value at that key path of the row, e.g. `/sessions/{id}`.
        public var path: String
        /// The fields to show, in order; the whole JSON object is shown below them.
        public var fields: [Column]
        /// Related lists: things that belong to the row (a chain's blocks), each read from a path
        /// templated from the detail object, e.g. `/chains/{chain_id}/blocks`. In a related list,
        /// a `{key.path}` (of its path, its rows' detail path, its actions) and an amount's asset
        /// are looked up in the row first, then in this detail object. One level: a related list's
        /// own detail has no lists or actions.
        public var lists: [List]
        /// What the viewer can do to the row: forms that `POST` to the rail's own routes.
        public var actions: [Action]

        public init(path: String, fields: [Column] = [], lists: [List] = [], actions: [Action] = []) {
            self.path = path
            self.fields = fields
            self.lists = lists
            self.actions = actions
        }

        enum CodingKeys: String, CodingKey {
            case path, fields, lists, actions
        }

        /// Reads details written before related lists and actions existed too.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decode(String.self, forKey: .path)
            fields = try container.decodeIfPresent([Column].self, forKey: .fields) ?? []
            lists = try container.decodeIfPresent([List].self, forKey: .lists) ?? []
            actions = try container.decodeIfPresent([Action].self, forKey: .actions) ?? []
        }
    }

    /// A declarative action on a detail view: a form whose values the console `POST`s as a JSON
    /// object to one of the rail's routes, after a confirmation, with a fresh `Idempotency-Key`
    /// per submission (reused only when the viewer retries an answer that was not definite).
    ///
    /// ```swift
    /// .init(
    ///     id: "grant", title: "Grant currency", path: "/chains/{chain_id}/grants",
    ///     fields: [.init("to", label: "To", kind: .address), .init("amount", label: "Amount", kind: .amount)],
    ///     confirmation: "Grant this amount? The validator signs a transfer on the chain.",
    ///     statuses: ["active"], idField: "id"
    /// )
    /// ```
    ///
    /// The rail's own authorisation and validation apply: a refusal (`application/problem+json`)
    /// is shown to the viewer as it is, and the detail is read again after a success.
    public struct Action: Sendable, Equatable, Codable {
        /// Names the action within its detail view: lower-case letters, digits and `-`.
        public var id: String
        /// The button's label, e.g. `Pause`.
        public var title: String
        /// The `POST` route under `/v1/rails/<id>`; each `{key.path}` is replaced by the
        /// URL-encoded value at that key path of the detail object, e.g. `/chains/{chain_id}/pause`.
        public var path: String
        /// The form's fields, in order; none for an action that needs no input (the body is `{}`).
        public var fields: [Field]
        /// What the confirmation dialog asks, e.g. `Pause this chain? No blocks are sealed until it resumes.`
        public var confirmation: String
        /// The key path of the detail object's status, for ``statuses``. `status` when not given.
        public var statusKey: String?
        /// The statuses in which the action is offered (pause only when `active`); every status
        /// when empty.
        public var statuses: [String]
        /// For routes that deduplicate by a client id in the body (a grant's `id`): the member the
        /// console fills with the submission's `Idempotency-Key`, so a retry is recognised by the
        /// rail itself too.
        public var idField: String?

        public init(
            id: String,
            title: String,
            path: String,
            fields: [Field] = [],
            confirmation: String,
            statusKey: String? = nil,
            statuses: [String] = [],
            idField: String? = nil
        ) {
            self.id = id
            self.title = title
            self.path = path
            self.fields = fields
            self.confirmation = confirmation
            self.statusKey = statusKey
            self.statuses = statuses
            self.idField = idField
        }

        enum CodingKeys: String, CodingKey {
            case id, title, path, fields, confirmation, statusKey, statuses, idField
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            path = try container.decode(String.self, forKey: .path)
            fields = try container.decodeIfPresent([Field].self, forKey: .fields) ?? []
            confirmation = try container.decode(String.self, forKey: .confirmation)
            statusKey = try container.decodeIfPresent(String.self, forKey: .statusKey)
            statuses = try container.decodeIfPresent([String].self, forKey: .statuses) ?? []
            idField = try container.decodeIfPresent(String.self, forKey: .idField)
        }
    }

    /// One input of an ``Action``'s form; its value is sent as a JSON string under ``name``.
    public struct Field: Sendable, Equatable, Codable {
        /// What the console accepts and sends.
        public enum Kind: String, Sendable, Codable, CaseIterable {
            /// Any text, trimmed.
            case text
            /// An Ethereum-style address: `0x` and 40 hex digits (the rail checks the rest, such as
            /// an EIP-55 checksum).
            case address
            /// An amount typed as a decimal (`12.50`) with the scale of the asset named by
            /// ``Field/assetKey`` in the detail object, sent as a decimal string of minor units
            /// (`"1250"`); never a floating-point number.
            case amount
        }

        /// The JSON member it is sent as: lower-case letters, digits and `_`.
        public var name: String
        public var label: String
        public var kind: Kind
        public var required: Bool
        /// For `.amount`: the key path of the detail object's asset code. `asset` when not given.
        public var assetKey: String?

        public init(_ name: String, label: String, kind: Kind = .text, required: Bool = true, assetKey: String? = nil) {
            self.name = name
            self.label = label
            self.kind = kind
            self.required = required
            self.assetKey = assetKey
        }
    }

    public var title: String
    public var summary: String
    public var links: [Link]
    public var lists: [List]

    public init(title: String, summary: String, links: [Link] = [], lists: [List] = []) {
        self.title = title
        self.summary = summary
        self.links = links
        self.lists = lists
    }

    enum CodingKeys: String, CodingKey {
        case title, summary, links, lists
    }

    /// Reads panels written before `lists` existed too.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        summary = try container.decode(String.self, forKey: .summary)
        links = try container.decodeIfPresent([Link].self, forKey: .links) ?? []
        lists = try container.decodeIfPresent([List].self, forKey: .lists) ?? []
    }
}
