import Foundation
public import HubKernel
public import Hummingbird
import Logging
import Mustache
import NIOCore

/// The admin console served at `/admin` (issue 7).
///
/// Pages are Mustache shells rendered here with the navigation and the versioned asset prefix;
/// the data comes from the REST API (`/v1/…`), called by small JavaScript modules with the
/// signed-in user's bearer token. The shells hold no data, so they need no authentication: the
/// API decides what each user sees, exactly as for any other client.
///
/// **Why the token lives in `sessionStorage` and not in a cookie**: the kernel authenticates
/// `Authorization: Bearer` only, so the console adds no second way in and no CSRF surface (a
/// browser never attaches a header on its own, where it would attach a cookie to a forged
/// request). What a cookie's `HttpOnly` would add — a script cannot read the token — matters
/// against injected script, which the console shuts out with its Content-Security-Policy (no
/// inline or foreign script) and by writing data only through `textContent`. `sessionStorage`
/// is per tab and gone when the tab closes.
public struct HubConsole: Sendable {
    let assets: ConsoleAssets
    let templates: MustacheLibrary
    let rails: [ConsoleRail]

    /// Loads the templates and assets from the module's resources. Throws when they are missing
    /// or a template does not parse (a build problem, reported at start-up rather than per request).
    public init(rails: [ConsoleRail]) throws {
        guard let resources = Bundle.module.url(forResource: "Resources", withExtension: nil) else {
            throw ConsoleError("the console's resources were not installed beside the executable (hubd_HubConsole.resources)")
        }
        assets = try ConsoleAssets(directory: resources.appendingPathComponent("static"))
        var library = MustacheLibrary()
        let templateDirectory = resources.appendingPathComponent("templates")
        for name in try FileManager.default.contentsOfDirectory(atPath: templateDirectory.path) where name.hasSuffix(".mustache") {
            let text = try String(contentsOf: templateDirectory.appendingPathComponent(name), encoding: .utf8)
            try library.register(text, named: String(name.dropLast(".mustache".count)))
        }
        templates = library
        self.rails = rails
    }

    /// The console for the running plugins that have a panel, in their order.
    public init(plugins: PluginHost) throws {
        try self.init(rails: plugins.running.compactMap { entry in entry.plugin.adminPanel.map { ConsoleRail(id: entry.id, title: $0.title) } })
    }

    /// Adds `/admin`, `/admin/<page>`, `/admin/rails/<id>` and `/admin/static/<version>/<file>`.
    public func addRoutes(to router: Router<HubRequestContext>) {
        let admin = router.group("admin").add(middleware: ConsoleSecurityHeaders())
        admin.get { _, _ in
            Response(status: .seeOther, headers: [.location: "/admin/overview"])
        }
        admin.get("login") { _, _ in try render(.login) }
        for page in ConsolePage.all {
            admin.get(RouterPath(page.id)) { _, _ in try render(page) }
        }
        admin.get("rails/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let rail = rails.first(where: { $0.id == id }) else { throw Problem.notFound("rail panel") }
            return try render(ConsolePage(id: ConsolePage.rail.id, title: rail.title), rail: rail)
        }
        admin.get("static/{version}/**") { _, context in
            let version = try context.parameters.require("version")
            let path = context.parameters.getCatchAll().joined(separator: "/")
            guard let response = assets.response(version: version, path: path) else { throw Problem.notFound("console asset") }
            return response
        }
    }

    /// The page's shell inside the layout. Pages are never cached: they name the current asset version.
    func render(_ page: ConsolePage, rail: ConsoleRail? = nil) throws -> Response {
        let navigation = ConsolePage.all.map { item in
            ["href": "/admin/\(item.id)", "title": item.title, "current": item.id == page.id] as [String: Any]
        }
        let railLinks = rails.map { item in
            ["href": "/admin/rails/\(item.id)", "title": item.title, "current": item.id == rail?.id] as [String: Any]
        }
        let values: [String: Any] = [
            "title": page.title,
            "page": page.id,
            "rail": rail?.id ?? "",
            "static": "/admin/static/\(assets.version)",
            "navigation": navigation,
            "rails": railLinks,
            "hasRails": !railLinks.isEmpty,
            "signedIn": page != .login,
        ]
        guard let html = templates.render(values, withTemplate: page.id) else {
            throw Problem(.internalServerError, code: "console_template_missing", detail: "The console has no template for `\(page.id)`.")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}

/// The console could not be set up.
public struct ConsoleError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
