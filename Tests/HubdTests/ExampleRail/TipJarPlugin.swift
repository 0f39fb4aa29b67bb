import HubKernel
import Hummingbird
import Logging
import Metrics
import ServiceLifecycle

/// The example rail of `docs/PLUGINS.md`: tip jars.
///
/// An organiser opens a jar that collects one asset into a payee account; members tip into it
/// from their own wallets; a background service closes jars whose time is up. It lives in the
/// test target on purpose: every test run compiles it against the real plugin API, so the guide
/// that quotes it cannot drift from the runtime without a build failing.
///
/// Everything it touches goes through ``PluginContext``: money through the ledger (each tip is a
/// transfer with `ref = (tip-jar, jar, <jar id>)`), its own tables (`tip_jar_*`) through its own
/// migrations, its facts as `tipjar.*` events, all in one unit of work per change (`context.write`).
struct TipJarPlugin: RailPlugin {
    static let id = "tip-jar"
    static let eventTypes = TipJarEvents.all

    let context: PluginContext
    let configuration: TipJarConfiguration
    /// Counts tips recorded (not retries), created once here as the metrics conventions ask.
    let tips: Counter

    /// Refuses a bad `config` with a ``PluginConfigError`` naming the member; `hubd` turns it into
    /// a start-up error naming `plugins.json`, this plugin and `plugins[i].config.<member>`.
    init(context: PluginContext, config: PluginConfig) throws {
        self.context = context
        self.configuration = try TipJarConfiguration(config)
        self.tips = Counter(label: "hub.tipjar.tips", factory: context.metrics)
    }

    static var schema: [Migration] { TipJarMigrations.all }

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        TipJarController(context: context, configuration: configuration, tips: tips).addRoutes(to: group)
    }

    var services: [any Service] {
        [TipJarCloser(context: context, interval: configuration.closeCheckInterval)]
    }

    var adminPanel: AdminPanel? {
        AdminPanel(
            title: "Tip jars",
            summary: "Jars that collect tips in one asset into a payee account. "
                + "Each jar's total equals the ledger transfers with ref tip-jar/jar/<id>; "
                + "jars past their closing time are closed every \(configuration.closeCheckIntervalMilliseconds) ms.",
            links: [AdminPanel.Link(title: "Jars", path: "/jars")]
        )
    }

    /// Healthy when the plugin's own table answers a query: that proves its migrations ran and
    /// the database is reachable. The error itself goes to the log, not to API callers.
    func health() async -> PluginHealth {
        do {
            let open = try await context.database.read { connection in
                try connection.queryFirst("SELECT count(*) AS open FROM tip_jar_jars WHERE status = 'open'")?.int("open") ?? 0
            }
            return PluginHealth(.ok, detail: "\(open) open jars")
        } catch {
            context.logger.info("tip jar health check failed", metadata: ["error": "\(error)"])
            return PluginHealth(.down, detail: "cannot read \(TipJarStore.jars)")
        }
    }
}
