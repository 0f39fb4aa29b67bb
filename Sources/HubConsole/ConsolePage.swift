/// The console's pages: each is a server-rendered shell (`templates/<id>.mustache`) that a
/// JavaScript module (`static/js/pages/<id>.js`) fills from the REST API.
struct ConsolePage: Sendable, Equatable {
    /// The URL segment under `/admin/`, the template's and the script's name.
    var id: String
    var title: String

    /// In navigation order.
    static let all: [ConsolePage] = [
        ConsolePage(id: "overview", title: "Overview"),
        ConsolePage(id: "assets", title: "Assets"),
        ConsolePage(id: "accounts", title: "Accounts"),
        ConsolePage(id: "transfers", title: "Transfers"),
        ConsolePage(id: "events", title: "Live events"),
        ConsolePage(id: "webhooks", title: "Webhooks"),
        ConsolePage(id: "users", title: "Users & keys"),
        ConsolePage(id: "plugins", title: "Plugins"),
    ]

    static let login = ConsolePage(id: "login", title: "Sign in")
    /// The generic page of a rail's ``AdminPanel`` (`/admin/rails/<id>`).
    static let rail = ConsolePage(id: "rail", title: "Rail")
}

/// A rail that has a panel, for the navigation (the panel itself is read from `GET /v1/plugins`).
public struct ConsoleRail: Sendable, Equatable {
    public var id: String
    public var title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
