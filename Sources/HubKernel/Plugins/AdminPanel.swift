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

        public init(path: String, fields: [Column] = []) {
            self.path = path
            self.fields = fields
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
