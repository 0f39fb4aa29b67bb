public import HubKernel
public import Hummingbird
public import ServiceLifecycle

/// The BLE sessions rail (`ble-sessions`): proximity payment sessions. A payee opens a session and
/// advertises its anonymous EID over Bluetooth; a phone nearby resolves the EID, locks the session
/// (a hold on the payer's wallet) and pays it (the hold posted). Optionally, the Gotchu server's
/// routes under `/gotchu`, so the existing app works by changing its base URL.
public struct BLESessionsPlugin: RailPlugin {
    public static let id = "ble-sessions"
    public static let eventTypes = SessionEvents.all

    let configuration: BLESessionsConfiguration
    let service: SessionService
    let controller: SessionsController
    let gotchu: GotchuController?
    let sweeper: SessionSweeper

    public init(context: PluginContext, config: PluginConfig) throws {
        configuration = try BLESessionsConfiguration(config)
        service = SessionService(context: context, configuration: configuration)
        let resolveLimit = RateLimitMiddleware(limiter: RateLimiter(), bucket: "ble-resolve", rule: configuration.resolveRule)
        controller = SessionsController(service: service, resolveLimit: resolveLimit)
        gotchu =
            configuration.gotchuCompatible
            ? GotchuController(service: service, identity: context.identity, developmentLogin: context.developmentLogin, resolveLimit: resolveLimit)
            : nil
        sweeper = SessionSweeper(service: service, interval: configuration.sweepInterval, logger: context.logger)
    }

    public static var schema: [Migration] { BLESessionsMigrations.all }

    public func addRoutes(to group: RouterGroup<HubRequestContext>) {
        controller.addRoutes(to: group)
        gotchu?.addRoutes(to: group.group("gotchu"))
    }

    public var services: [any Service] { [sweeper] }

    public var adminPanel: AdminPanel? {
        AdminPanel(
            title: "BLE sessions",
            summary: "Proximity payment sessions: payees advertise an anonymous id over Bluetooth; one payer per share locks it (a hold) and pays.",
            links: [AdminPanel.Link(title: "Sessions (JSON)", path: "/sessions")],
            lists: [
                AdminPanel.List(
                    id: "sessions",
                    title: "Sessions",
                    path: "/sessions",
                    columns: [
                        .init("id", title: "Session", kind: .link),
                        .init("status", title: "Status", kind: .status),
                        .init("amount", title: "Amount", kind: .amount),
                        .init("split.payers", title: "Payers"),
                        .init("paid_shares", title: "Paid"),
                        .init("payee.display_name", title: "Payee"),
                        .init("eid", title: "EID"),
                        .init("created_at", title: "Opened", kind: .time),
                        .init("expires_at", title: "Expires", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/sessions/{id}",
                        fields: [
                            .init("session.status", title: "Status", kind: .status),
                            .init("session.amount", title: "Amount", kind: .amount, assetKey: "session.asset"),
                            .init("session.split.mode", title: "Split"),
                            .init("session.held_shares", title: "Held shares"),
                            .init("session.paid_shares", title: "Paid shares"),
                            .init("session.payee.display_name", title: "Payee"),
                            .init("session.eid", title: "Current EID"),
                            .init("session.advertisement.data", title: "Advertising data (hex)"),
                            .init("session.ended_at", title: "Ended", kind: .time),
                        ]
                    )
                )
            ]
        )
    }
}
