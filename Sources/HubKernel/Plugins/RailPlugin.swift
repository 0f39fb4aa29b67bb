public import Hummingbird
public import ServiceLifecycle

/// A payment rail (DESIGN §3.5). The kernel knows none by name: `hubd` holds the built-in list,
/// `plugins.json` says which run, and the ``PluginHost`` gives each its context, migrations,
/// routes under `/v1/rails/<id>` and services.
///
/// A plugin reaches the kernel only through ``PluginContext`` and never imports another plugin.
public protocol RailPlugin: Sendable {
    /// The plugin's id: lower-case words joined by `-` (`ble-sessions`). It is the path segment
    /// under `/v1/rails/`, the migration group and the prefix of its tables (`ble_sessions_`).
    static var id: String { get }

    /// Builds the plugin from its `config` object in `plugins.json`. Throw ``PluginConfigError``
    /// naming the field for anything invalid; start-up stops with the file, plugin and field.
    init(context: PluginContext, config: PluginConfig) throws

    /// Every event type the plugin appends (`ble.session.paid`): lower-case dotted names, none in
    /// the kernel's namespaces (``PluginEventTypes/kernelNamespaces``), none shared with another
    /// plugin. A unit of work that appends any other type is refused
    /// (``UnitError/undeclaredEventType(_:owner:)``), and `GET /v1/plugins` lists them for whoever
    /// subscribes webhooks.
    static var eventTypes: [String] { get }

    /// The plugin's own ordered, named migrations (its tables start with ``PluginContext/tablePrefix``),
    /// known without building the plugin, so `hubd version` can say which schema this build carries.
    static var schema: [Migration] { get }

    /// The migrations the host applies for this plugin; ``schema`` unless the plugin says otherwise.
    var migrations: [Migration] { get }

    /// Adds the plugin's routes to `group`, which is mounted at `/v1/rails/<id>`.
    func addRoutes(to group: RouterGroup<HubRequestContext>)

    /// Background work; started before the HTTP server and stopped after it.
    var services: [any Service] { get }

    /// What the admin console shows for this rail, if anything.
    var adminPanel: AdminPanel? { get }

    /// A quick self-check for `GET /v1/plugins` (must not block for long).
    func health() async -> PluginHealth
}

extension RailPlugin {
    public static var eventTypes: [String] { [] }
    public static var schema: [Migration] { [] }
    public var migrations: [Migration] { Self.schema }
    public var services: [any Service] { [] }
    public var adminPanel: AdminPanel? { nil }
    public func health() async -> PluginHealth { .ok }
}

/// The answer of ``RailPlugin/health()``.
public struct PluginHealth: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        case ok, degraded, down
    }

    public var status: Status
    public var detail: String?

    public init(_ status: Status, detail: String? = nil) {
        self.status = status
        self.detail = detail
    }

    public static let ok = PluginHealth(.ok)
}

/// The rules for plugins' event type names.
public enum PluginEventTypes {
    /// The kernel's own event types start with one of these.
    public static let kernelNamespaces = ["ledger.", "identity.", "webhook.", "hub."]

    /// Why `type` cannot be a plugin's event type, or `nil` when it can.
    public static func problem(with type: String) -> String? {
        let words = type.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed =
            words.count >= 2
            && words.allSatisfy { word in
                word.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } == true
                    && word.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
            }
        guard wellFormed else { return "'\(type)' is not lower-case words joined by '.'" }
        if let namespace = kernelNamespaces.first(where: { type.hasPrefix($0) }) {
            return "'\(type)' is in the kernel's namespace '\(namespace)'"
        }
        return nil
    }
}
