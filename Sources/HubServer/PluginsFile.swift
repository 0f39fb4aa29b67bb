public import Foundation
import HubKernel

/// `plugins.json`: which rails run and with what configuration.
///
/// ```json
/// { "plugins": [ { "id": "ble-sessions", "enabled": true, "config": { } } ] }
/// ```
/// Ids must be among the built-in rails; errors name the file, the plugin and the field. Each
/// plugin then checks its own `config` when it is built (``PluginHost``).
public struct PluginsFile: Sendable, Equatable {
    /// One rail's entry.
    public struct Entry: Sendable, Equatable {
        /// The rail's id (``RailPlugin/id``).
        public var id: String
        /// Whether the rail runs.
        public var enabled: Bool
        /// The entry's `config` object as JSON text (`{}` when absent).
        public var configJSON: String = "{}"
        /// Where the entry is in the file, for error messages: `plugins[2]`.
        public var place: String = ""

        /// An entry as the file (or a test) gives it; `place` is where error messages say it is.
        public init(id: String, enabled: Bool, configJSON: String = "{}", place: String = "") {
            self.id = id
            self.enabled = enabled
            self.configJSON = configJSON
            self.place = place
        }
    }

    /// The entries in the file's order.
    public var entries: [Entry]
    /// The file's path, named in error messages.
    public var path: String = ""

    /// A plugins file read from `path` (named in error messages) with these entries.
    public init(entries: [Entry], path: String = "") {
        self.entries = entries
        self.path = path
    }

    var pluginEntries: [PluginEntry] { entries.map { PluginEntry(id: $0.id, enabled: $0.enabled, configJSON: $0.configJSON) } }

    /// The error for a plugin whose configuration its own code refused, naming file, plugin and field.
    func error(for failure: PluginSetupError) -> ConfigurationError {
        let place = entries.first(where: { $0.id == failure.pluginID })?.place ?? "plugins"
        let field = failure.field.map { "\(place).config.\($0)" } ?? place
        return ConfigurationError(source: path, message: "plugin '\(failure.pluginID)' (\(field)): \(failure.message)")
    }

    /// Reads the file at `path`; without one, every built-in rail runs unless `required`.
    /// - Throws: ``ConfigurationError`` naming the file, the plugin and the field at fault.
    public static func load(path: String, required: Bool, builtInIDs: [String]) throws -> PluginsFile {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError(source: path, message: "the plugins file does not exist") }
            return allBuiltIn(builtInIDs, path: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(source: path, message: "cannot read the plugins file")
        }
        return try parse(data, path: path, builtInIDs: builtInIDs)
    }

    /// Without a plugins file, every built-in rail runs with its defaults: the embedded default
    /// deployment shows everything the hub can do, and a file narrows it down.
    static func allBuiltIn(_ ids: [String], path: String) -> PluginsFile {
        PluginsFile(entries: ids.map { Entry(id: $0, enabled: true, place: "built-in default") }, path: path)
    }

    /// Parses the file's JSON; ids must be among `builtInIDs`.
    /// - Throws: ``ConfigurationError`` naming the file, the plugin and the field at fault.
    public static func parse(_ data: Data, path: String, builtInIDs: [String]) throws -> PluginsFile {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigurationError(source: path, message: "not valid JSON (\(error.localizedDescription))")
        }
        guard let root = object as? [String: Any] else {
            throw ConfigurationError(source: path, message: "the top level must be an object with a \"plugins\" array")
        }
        for key in root.keys where key != "plugins" {
            throw ConfigurationError(source: path, message: "unknown top-level field \"\(key)\" (only \"plugins\" is allowed)")
        }
        guard let list = root["plugins"] as? [Any] else {
            throw ConfigurationError(source: path, message: "\"plugins\" must be an array")
        }
        var entries: [Entry] = []
        var seen = Set<String>()
        for (index, item) in list.enumerated() {
            let place = "plugins[\(index)]"
            guard let fields = item as? [String: Any] else {
                throw ConfigurationError(source: path, message: "\(place) must be an object")
            }
            guard let id = fields["id"] as? String, !id.isEmpty else {
                throw ConfigurationError(source: path, message: "\(place).id must be a non-empty string")
            }
            for key in fields.keys where !["id", "enabled", "config"].contains(key) {
                throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place)): unknown field \"\(key)\"")
            }
            guard builtInIDs.contains(id) else {
                let known = builtInIDs.isEmpty ? "none are built into this hubd yet" : "known: \(builtInIDs.joined(separator: ", "))"
                throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place).id): unknown plugin id (\(known))")
            }
            guard seen.insert(id).inserted else {
                throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place).id) is listed twice")
            }
            var enabled = true
            if let value = fields["enabled"] {
                guard let flag = jsonBool(value) else {
                    throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place).enabled) must be true or false")
                }
                enabled = flag
            }
            var configJSON = "{}"
            if let config = fields["config"] {
                guard config is [String: Any] else {
                    throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place).config) must be an object")
                }
                configJSON = String(decoding: try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]), as: UTF8.self)
            }
            entries.append(Entry(id: id, enabled: enabled, configJSON: configJSON, place: place))
        }
        return PluginsFile(entries: entries, path: path)
    }
}

/// A JSON `true`/`false` as Foundation parsed it. Numbers are refused: `1` is not a boolean.
func jsonBool(_ value: Any) -> Bool? {
    guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
    return number.boolValue
}
