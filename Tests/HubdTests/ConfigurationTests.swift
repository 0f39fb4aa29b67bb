import Foundation
import HubKernel
import HubServer
import Logging
import Testing

@Suite("hubd configuration")
struct ConfigurationTests {
    @Test("defaults: embedded SQLite, loopback 8080")
    func defaults() throws {
        let configuration = try HubConfiguration.load(environment: [:])
        #expect(configuration.databaseURL == .sqlite(path: "./var/hub.sqlite"))
        #expect(configuration.listenHost == "127.0.0.1")
        #expect(configuration.listenPort == 8080)
        #expect(configuration.pluginsPath == "plugins.json")
        #expect(configuration.secretsKeyFile == "./var/secrets.key")
    }

    @Test("the secrets key file: beside the SQLite database, var/ for PostgreSQL, or HUB_SECRETS_KEY_FILE")
    func secretsKeyFile() throws {
        #expect(try HubConfiguration.load(environment: ["HUB_DATABASE_URL": "sqlite:/srv/hub/data.db"]).secretsKeyFile == "/srv/hub/secrets.key")
        #expect(try HubConfiguration.load(environment: ["HUB_DATABASE_URL": "sqlite:hub.db"]).secretsKeyFile == "secrets.key")
        #expect(try HubConfiguration.load(environment: ["HUB_DATABASE_URL": "postgres://u@db/hub"]).secretsKeyFile == "var/secrets.key")
        let set = try HubConfiguration.load(environment: ["HUB_SECRETS_KEY_FILE": "/etc/hubd/kek", "HUB_DATABASE_URL": "sqlite:/x/h.db"])
        #expect(set.secretsKeyFile == "/etc/hubd/kek")
    }

    @Test("variables are read and flags override them")
    func overrides() throws {
        let environment = ["HUB_DATABASE_URL": "postgres://u:secret@db:5432/hub", "HUB_LISTEN": "[::1]:9000", "HUB_LOG_LEVEL": "DEBUG"]
        let fromEnvironment = try HubConfiguration.load(environment: environment)
        #expect(fromEnvironment.databaseURL == .postgres(uri: "postgres://u:secret@db:5432/hub"))
        #expect(fromEnvironment.databaseURL.description == "postgres://u:***@db:5432/hub")
        #expect(fromEnvironment.listenHost == "::1")
        #expect(fromEnvironment.listenPort == 9000)
        #expect(fromEnvironment.logLevel == .debug)
        let flagged = try HubConfiguration.load(environment: environment, databaseFlag: "sqlite:/tmp/x.db", listenFlag: "0.0.0.0:1")
        #expect(flagged.databaseURL == .sqlite(path: "/tmp/x.db"))
        #expect(flagged.listenPort == 1)
        let tuned = try HubConfiguration.load(environment: [
            "HUB_DEV_LOGIN": "1", "HUB_IDEMPOTENCY_RETENTION_HOURS": "48", "HUB_WEBHOOK_RETRY_SCHEDULE": "5s, 10m,2h",
        ])
        #expect(tuned.devLogin)
        #expect(tuned.idempotency.retention == .seconds(48 * 3600))
        #expect(tuned.webhooks.retrySchedule == [.seconds(5), .seconds(600), .seconds(7200)])
    }

    @Test(
        "bad values name the variable and say what is wrong",
        arguments: [
            (["HUB_DATABASE_URL": "mysql://x"], "HUB_DATABASE_URL"),
            (["HUB_DATABASE_URL": "sqlite:"], "HUB_DATABASE_URL"),
            (["HUB_LISTEN": "8080"], "HUB_LISTEN"),
            (["HUB_LISTEN": "localhost:99999"], "HUB_LISTEN"),
            (["HUB_LISTEN": ":80"], "HUB_LISTEN"),
            (["HUB_LOG_LEVEL": "loud"], "HUB_LOG_LEVEL"),
            (["HUB_DEV_LOGIN": "yes"], "HUB_DEV_LOGIN"),
            (["HUB_IDEMPOTENCY_RETENTION_HOURS": "1"], "HUB_IDEMPOTENCY_RETENTION_HOURS"),
            (["HUB_WEBHOOK_RETRY_SCHEDULE": "5s,soon"], "HUB_WEBHOOK_RETRY_SCHEDULE"),
            (["HUB_WEBHOOK_RETRY_SCHEDULE": "5d"], "HUB_WEBHOOK_RETRY_SCHEDULE"),
            (["HUB_DRAIN_SECONDS": "-1"], "HUB_DRAIN_SECONDS"),
            (["HUB_DRAIN_SECONDS": "5s"], "HUB_DRAIN_SECONDS"),
            (["HUB_PUBLIC_URL": "pay.example.org"], "HUB_PUBLIC_URL"),
            (["HUB_PUBLIC_URL": "ftp://pay.example.org"], "HUB_PUBLIC_URL"),
            (["HUB_PUBLIC_URL": "https://pay.example.org/login"], "HUB_PUBLIC_URL"),
        ]
    )
    func badValues(environment: [String: String], variable: String) {
        #expect {
            try HubConfiguration.load(environment: environment)
        } throws: { error in
            (error as? ConfigurationError)?.source == variable
        }
    }

    @Test("wallet sign-in messages name HUB_PUBLIC_URL's host, or the listen address by default")
    func publicURL() throws {
        let listening = try HubConfiguration.load(environment: ["HUB_LISTEN": "127.0.0.1:9090"])
        #expect(listening.identity.domain == "127.0.0.1:9090")
        #expect(listening.identity.publicURI == "http://127.0.0.1:9090")
        let public_ = try HubConfiguration.load(environment: ["HUB_PUBLIC_URL": "https://Pay.Example.org/"])
        #expect(public_.identity.domain == "pay.example.org")
        #expect(public_.identity.publicURI == "https://pay.example.org")
    }

    @Test("a plugins file with no plugins is valid; a missing default file means none")
    func emptyPlugins() throws {
        #expect(try PluginsFile.parse(Data(#"{"plugins": []}"#.utf8), path: "p.json", builtInIDs: []).entries.isEmpty)
        #expect(try PluginsFile.load(path: "/nonexistent/plugins.json", required: false, builtInIDs: []).entries.isEmpty)
        #expect(throws: ConfigurationError.self) { try PluginsFile.load(path: "/nonexistent/plugins.json", required: true, builtInIDs: []) }
    }

    @Test(
        "bad plugins files name the file, the plugin and the field",
        arguments: [
            (#"{"plugins": [{"id": "nope"}]}"#, "plugin 'nope' (plugins[0].id): unknown plugin id"),
            (#"{"plugins": [{"enabled": true}]}"#, "plugins[0].id must be a non-empty string"),
            (#"{"plugins": {}}"#, "\"plugins\" must be an array"),
            (#"{"plugins": [], "extra": 1}"#, "unknown top-level field \"extra\""),
            (#"[1, 2]"#, "the top level must be an object"),
            (#"{"plugins": ["#, "not valid JSON"),
        ]
    )
    func badPlugins(text: String, expected: String) {
        #expect {
            try PluginsFile.parse(Data(text.utf8), path: "conf/plugins.json", builtInIDs: ["tip-jar"])
        } throws: { error in
            let description = String(describing: error)
            return description.hasPrefix("conf/plugins.json: ") && description.contains(expected)
        }
    }

    @Test("the repository's plugins.json is valid")
    func repositoryPluginsFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        _ = try PluginsFile.load(
            path: root.appendingPathComponent("plugins.json").path,
            required: true,
            builtInIDs: BuiltInPlugins.all.map { $0.id }
        )
    }
}
