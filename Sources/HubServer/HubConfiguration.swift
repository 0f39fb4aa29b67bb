public import Foundation
public import HubKernel
public import Logging

/// A configuration mistake, naming the variable, file or flag at fault and what is wrong.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// The variable, file or flag at fault (`HUB_LISTEN`, `conf/plugins.json`, `--database-url`).
    public let source: String
    /// What is wrong with it.
    public let message: String
    public var description: String { "\(source): \(message)" }
}

/// Everything `hubd` reads from its environment. Flags override variables.
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HUB_DATABASE_URL` | `sqlite:./var/hub.sqlite` | `sqlite:PATH` or `postgres://…` |
/// | `HUB_LISTEN` | `127.0.0.1:8080` | `HOST:PORT` for HTTP (`[::1]:8080` for IPv6) |
/// | `HUB_PLUGINS` | `plugins.json` | the plugins file |
/// | `HUB_LOG_LEVEL` | `info` | `trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical` |
/// | `HUB_DEV_LOGIN` | `0` | `1` adds `POST /v1/auth/dev-login` (sign in by email alone) |
/// | `HUB_IDEMPOTENCY_RETENTION_HOURS` | `24` | how long `Idempotency-Key`s are kept (24 or more) |
/// | `HUB_WEBHOOK_RETRY_SCHEDULE` | `5s,30s,2m,10m,30m,1h,2h,4h,8h,8h,8h` | waits between webhook attempts |
/// | `HUB_WEBHOOK_ALLOW_PRIVATE` | (none) | comma-separated CIDRs of non-public receivers webhooks may reach (`10.1.0.0/16,fd00::/8`) |
/// | `HUB_DRAIN_SECONDS` | `0` on SQLite, `5` on PostgreSQL | on SIGTERM, how long `/readyz` answers 503 before the server stops taking requests (0 to 300) |
/// | `HUB_PUBLIC_URL` | `http://` + `HUB_LISTEN` | the URL clients reach the hub at (`https://pay.example.org`); wallet sign-in messages name its host |
/// | `HUB_SECRETS_KEY_FILE` | `secrets.key` beside the SQLite database, else `var/secrets.key` | the secrets vault's key-encryption key (mode 0600) |
public struct HubConfiguration: Sendable {
    /// `HUB_DATABASE_URL`.
    public var databaseURL = DatabaseURL.defaultURL
    /// The host part of `HUB_LISTEN`.
    public var listenHost = "127.0.0.1"
    /// The port part of `HUB_LISTEN` (0: any free port).
    public var listenPort = 8080
    /// `HUB_PLUGINS`.
    public var pluginsPath = "plugins.json"
    /// Whether the plugins file was named (then it must exist; the default may be absent).
    public var pluginsPathIsExplicit = false
    /// `HUB_LOG_LEVEL`.
    public var logLevel = Logger.Level.info
    /// `HUB_DEV_LOGIN`.
    public var devLogin = false
    /// `HUB_PUBLIC_URL`, when set; otherwise ``publicURL`` derives it from the listen address.
    public var publicURLOverride: PublicURL?
    /// Where clients reach the hub.
    public var publicURL: PublicURL {
        publicURLOverride
            ?? PublicURL(scheme: "http", authority: listenHost.contains(":") ? "[\(listenHost)]:\(listenPort)" : "\(listenHost):\(listenPort)")
    }
    /// Identity's settings that follow from this configuration (the domain of sign-in messages).
    public var identity: IdentityConfiguration {
        var identity = IdentityConfiguration()
        identity.domain = publicURL.authority
        identity.publicURI = publicURL.text
        return identity
    }
    /// `HUB_IDEMPOTENCY_RETENTION_HOURS`.
    public var idempotency = IdempotencyConfiguration()
    /// `HUB_WEBHOOK_RETRY_SCHEDULE` and `HUB_WEBHOOK_ALLOW_PRIVATE`.
    public var webhooks = WebhookConfiguration()
    /// `HUB_DRAIN_SECONDS`; `nil` for the default, ``drain``.
    public var drainOverride: Duration?

    /// How long a stopping `hubd` tells load balancers it is not ready before it stops taking
    /// requests: several instances run on PostgreSQL behind a balancer, whose health checks need
    /// a few seconds to move traffic away; a single SQLite hub has no balancer to tell.
    public var drain: Duration { drainOverride ?? (databaseURL.dialect == .postgres ? .seconds(5) : .zero) }

    /// `HUB_SECRETS_KEY_FILE`; `nil` for the default, ``defaultSecretsKeyFile(for:)``.
    public var secretsKeyFileOverride: String?

    /// The secrets vault's key file: `HUB_SECRETS_KEY_FILE`, or the default for the database.
    public var secretsKeyFile: String { secretsKeyFileOverride ?? Self.defaultSecretsKeyFile(for: databaseURL) }

    /// `secrets.key` in the SQLite database's folder (the two belong together, and a second hub
    /// with its own database gets its own key); `var/secrets.key` for PostgreSQL.
    public static func defaultSecretsKeyFile(for url: DatabaseURL) -> String {
        switch url {
        case .sqlite(let path):
            let folder = (path as NSString).deletingLastPathComponent
            return folder.isEmpty ? "secrets.key" : folder + "/secrets.key"
        case .postgres: return "var/secrets.key"
        }
    }

    /// The defaults of the table above.
    public init() {}

    /// Reads `environment`, with the flags (when given) overriding their variables.
    /// - Throws: ``ConfigurationError`` naming the variable or flag at fault.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        databaseFlag: String? = nil,
        listenFlag: String? = nil,
        pluginsFlag: String? = nil
    ) throws -> HubConfiguration {
        var configuration = HubConfiguration()
        if let text = databaseFlag ?? environment["HUB_DATABASE_URL"], !text.isEmpty {
            do {
                configuration.databaseURL = try DatabaseURL(text)
            } catch let error as DatabaseError {
                throw ConfigurationError(source: databaseFlag != nil ? "--database-url" : "HUB_DATABASE_URL", message: error.message)
            }
        }
        if let text = listenFlag ?? environment["HUB_LISTEN"], !text.isEmpty {
            let source = listenFlag != nil ? "--listen" : "HUB_LISTEN"
            (configuration.listenHost, configuration.listenPort) = try parseListen(text, source: source)
        }
        if let path = pluginsFlag ?? environment["HUB_PLUGINS"], !path.isEmpty {
            configuration.pluginsPath = path
            configuration.pluginsPathIsExplicit = true
        }
        if let text = environment["HUB_LOG_LEVEL"], !text.isEmpty {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError(source: "HUB_LOG_LEVEL", message: "'\(text)' is not a log level (\(levels))")
            }
            configuration.logLevel = level
        }
        if let text = environment["HUB_DEV_LOGIN"], !text.isEmpty {
            guard text == "0" || text == "1" else {
                throw ConfigurationError(source: "HUB_DEV_LOGIN", message: "'\(text)' must be 0 or 1")
            }
            configuration.devLogin = text == "1"
        }
        if let text = environment["HUB_IDEMPOTENCY_RETENTION_HOURS"], !text.isEmpty {
            guard let hours = Int(text), (24...24 * 365).contains(hours) else {
                throw ConfigurationError(
                    source: "HUB_IDEMPOTENCY_RETENTION_HOURS",
                    message: "'\(text)' must be a whole number of hours from 24 to 8760"
                )
            }
            configuration.idempotency.retention = .seconds(hours * 3600)
        }
        if let text = environment["HUB_DRAIN_SECONDS"], !text.isEmpty {
            guard let seconds = Int(text), (0...300).contains(seconds) else {
                throw ConfigurationError(source: "HUB_DRAIN_SECONDS", message: "'\(text)' must be a whole number of seconds from 0 to 300")
            }
            configuration.drainOverride = .seconds(seconds)
        }
        if let text = environment["HUB_PUBLIC_URL"], !text.isEmpty {
            guard let url = PublicURL(text) else {
                throw ConfigurationError(
                    source: "HUB_PUBLIC_URL",
                    message: "'\(text)' is not an http(s) URL with a host and no path, such as https://pay.example.org"
                )
            }
            configuration.publicURLOverride = url
        }
        if let path = environment["HUB_SECRETS_KEY_FILE"], !path.isEmpty {
            configuration.secretsKeyFileOverride = path
        }
        if let text = environment["HUB_WEBHOOK_RETRY_SCHEDULE"], !text.isEmpty {
            configuration.webhooks.retrySchedule = try parseSchedule(text, source: "HUB_WEBHOOK_RETRY_SCHEDULE")
        }
        if let text = environment["HUB_WEBHOOK_ALLOW_PRIVATE"], !text.isEmpty {
            configuration.webhooks.addressPolicy.allowedNetworks = try text.split(separator: ",").map { part in
                let item = part.trimmingCharacters(in: .whitespaces)
                guard let network = IPNetwork(parsing: item) else {
                    throw ConfigurationError(
                        source: "HUB_WEBHOOK_ALLOW_PRIVATE",
                        message: "'\(item)' is not a network such as 10.0.0.0/8 or fd00::/8"
                    )
                }
                return network
            }
        }
        return configuration
    }

    /// `5s,30s,2m,1h`: waits between attempts, each a whole number with `s`, `m` or `h`.
    static func parseSchedule(_ text: String, source: String) throws -> [Duration] {
        try text.split(separator: ",").map { part in
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let unit = item.last, let number = Int(item.dropLast()), number > 0 else {
                throw ConfigurationError(source: source, message: "'\(item)' is not a wait such as 30s, 10m or 2h")
            }
            switch unit {
            case "s": return .seconds(number)
            case "m": return .seconds(number * 60)
            case "h": return .seconds(number * 3600)
            default: throw ConfigurationError(source: source, message: "'\(item)' must end in s, m or h")
            }
        }
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`.
    static func parseListen(_ text: String, source: String) throws -> (String, Int) {
        let usage = "expected HOST:PORT such as 127.0.0.1:8080 or [::1]:8080, got '\(text)'"
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigurationError(source: source, message: usage)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ConfigurationError(source: source, message: usage) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw ConfigurationError(source: source, message: usage) }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw ConfigurationError(source: source, message: "port must be a number from 0 to 65535 (\(usage))")
        }
        return (String(host), port)
    }
}
