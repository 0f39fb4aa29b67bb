import Foundation

/// `plugins.json`: which rails run and with what configuration.
///
/// ```json
/// { "plugins": [ { "id": "ble-sessions", "enabled": true, "config": { } } ] }
/// ```
/// No rail is built in yet, so every listed id is unknown and refused; an empty list is the
/// valid file. Errors name the file, the plugin and the field.
struct PluginsFile: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var id: String
        var enabled: Bool
    }

    var entries: [Entry]

    /// The ids of the rails compiled into this build.
    static let builtInIDs: [String] = []

    static func load(path: String, required: Bool) throws -> PluginsFile {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError(source: path, message: "the plugins file does not exist") }
            return PluginsFile(entries: [])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(source: path, message: "cannot read the plugins file")
        }
        return try parse(data, path: path)
    }

    static func parse(_ data: Data, path: String) throws -> PluginsFile {
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
            if let config = fields["config"], !(config is [String: Any]) {
                throw ConfigurationError(source: path, message: "plugin '\(id)' (\(place).config) must be an object")
            }
            entries.append(Entry(id: id, enabled: enabled))
        }
        return PluginsFile(entries: entries)
    }
}

/// A JSON `true`/`false` as Foundation parsed it. Numbers are refused: `1` is not a boolean.
func jsonBool(_ value: Any) -> Bool? {
    guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
    return number.boolValue
}
