public import Hummingbird
import Logging
public import ServiceLifecycle

/// One line of `plugins.json` after the file itself was checked: which plugin, whether it runs,
/// and its `config` object as JSON text.
public struct PluginEntry: Sendable, Equatable {
    public var id: String
    public var enabled: Bool
    public var configJSON: String

    public init(id: String, enabled: Bool, configJSON: String = "{}") {
        self.id = id
        self.enabled = enabled
        self.configJSON = configJSON
    }
}

/// Why a plugin could not be set up, with where: the plugin and, for configuration errors, the
/// member of its `config`.
public struct PluginSetupError: Error, Sendable, CustomStringConvertible {
    public var pluginID: String
    public var field: String?
    public var message: String

    public var description: String {
        "plugin '\(pluginID)'" + (field.map { " (config.\($0))" } ?? "") + ": \(message)"
    }
}

/// Instantiates the enabled plugins and gathers what they bring: migrations, routes, services.
public final class PluginHost: Sendable {
    public struct Running: Sendable {
        public let id: String
        public let plugin: any RailPlugin
    }

    /// Every built-in plugin, enabled or not, for `GET /v1/plugins`.
    public let builtIn: [any RailPlugin.Type]
    public let running: [Running]

    /// Builds each enabled entry's plugin with its own context. Throws ``PluginSetupError``.
    public init(
        builtIn: [any RailPlugin.Type],
        entries: [PluginEntry],
        makeContext: (String) -> PluginContext
    ) throws {
        // The built-in list is code: a bad or repeated id is a programming error, caught at start.
        for type in builtIn {
            precondition(PluginID.isValid(type.id), "plugin id '\(type.id)' is not lower-case words joined by '-'")
        }
        precondition(Set(builtIn.map { $0.id }).count == builtIn.count, "two built-in plugins share an id")
        var eventTypeOwners: [String: String] = [:]
        for type in builtIn {
            for eventType in type.eventTypes {
                if let problem = PluginEventTypes.problem(with: eventType) { preconditionFailure("plugin '\(type.id)': \(problem)") }
                if let owner = eventTypeOwners.updateValue(type.id, forKey: eventType), owner != type.id {
                    preconditionFailure("plugins '\(owner)' and '\(type.id)' both declare the event type '\(eventType)'")
                }
            }
        }
        self.builtIn = builtIn
        var running: [Running] = []
        for entry in entries where entry.enabled {
            guard let type = builtIn.first(where: { $0.id == entry.id }) else {
                throw PluginSetupError(pluginID: entry.id, message: "no such plugin in this build")
            }
            do {
                var context = makeContext(entry.id)
                context.eventTypes = Set(type.eventTypes)
                let plugin = try type.init(context: context, config: PluginConfig(json: entry.configJSON))
                // The console draws the panel from data: a broken one is refused here, named.
                try plugin.adminPanel?.validate()
                running.append(Running(id: entry.id, plugin: plugin))
            } catch let error as PluginConfigError {
                throw PluginSetupError(pluginID: entry.id, field: error.field, message: error.message)
            } catch {
                throw PluginSetupError(pluginID: entry.id, message: "\(error)")
            }
        }
        self.running = running
    }

    /// Each running plugin's migrations as its own group, after the kernel's.
    public var migrationGroups: [(group: MigrationGroup, migrations: [Migration])] {
        running.map { (group: MigrationGroup.rail($0.id), migrations: $0.plugin.migrations) }
    }

    public var services: [any Service] { running.flatMap(\.plugin.services) }

    /// Mounts every running plugin at `/v1/rails/<id>` and adds `GET /v1/plugins`.
    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        for entry in running {
            entry.plugin.addRoutes(to: v1.group(RouterPath("rails/\(entry.id)")))
        }
        v1.get("plugins", use: list)
    }

    struct PluginRepresentation: Encodable, Sendable {
        var id: String
        /// `running` or `disabled`.
        var status: String
        var health: PluginHealth?
        var adminPanel: AdminPanel?
        var routePrefix: String
        /// The event types the rail appends, for whoever subscribes webhooks to them.
        var eventTypes: [String]
    }

    /// The running plugins that report `down`, with why: readiness fails while there is one (a
    /// degraded plugin still serves).
    public func downPlugins() async -> [(id: String, detail: String)] {
        var down: [(id: String, detail: String)] = []
        for entry in running {
            let health = await Self.health(of: entry.plugin)
            if health.status == .down { down.append((entry.id, health.detail ?? "down")) }
        }
        return down
    }

    /// A plugin's health, or `down` when it does not answer within two seconds (one stuck plugin
    /// must not hang the list).
    static func health(of plugin: any RailPlugin, timeout: Duration = .seconds(2)) async -> PluginHealth {
        await withTaskGroup(of: PluginHealth?.self) { group in
            group.addTask { await plugin.health() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? PluginHealth(.down, detail: "the health check did not answer within \(timeout)")
        }
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requirePrincipal()
        var items: [PluginRepresentation] = []
        for type in builtIn.sorted(by: { $0.id < $1.id }) {
            if let entry = running.first(where: { $0.id == type.id }) {
                items.append(
                    PluginRepresentation(
                        id: type.id,
                        status: "running",
                        health: await Self.health(of: entry.plugin),
                        adminPanel: entry.plugin.adminPanel,
                        routePrefix: "/v1/rails/\(type.id)",
                        eventTypes: type.eventTypes
                    )
                )
            } else {
                items.append(PluginRepresentation(id: type.id, status: "disabled", routePrefix: "/v1/rails/\(type.id)", eventTypes: type.eventTypes))
            }
        }
        return try context.json(Page(data: items, nextCursor: nil))
    }
}
