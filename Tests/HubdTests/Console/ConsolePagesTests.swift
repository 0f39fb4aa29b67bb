import Foundation
import HTTPTypes
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The admin console's shells and assets as `hubd` serves them (the browser test in
/// `tools/browser/` drives the same pages in Chromium).
@Suite("admin console pages and assets", .timeLimit(.minutes(3)))
struct ConsolePagesTests {
    static let pages = ["login", "overview", "assets", "accounts", "transfers", "events", "webhooks", "users", "plugins"]

    /// The versioned asset prefix a page names (`/admin/static/<16 hex digits>`).
    static func staticPrefix(in html: String) throws -> String {
        let match = try #require(html.firstMatch(of: /\/admin\/static\/[0-9a-f]{16}/))
        return String(match.output)
    }

    @Test("every page renders its shell with the layout, the versioned script and a strict CSP")
    func pagesRender() async throws {
        try await withTestHub(on: .sqlite) { _, client in
            for page in Self.pages {
                try await client.execute(uri: "/admin/\(page)", method: .get) { response in
                    #expect(response.status == .ok, "\(page)")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(page)")
                    #expect(response.headers[.cacheControl] == "no-store", "\(page)")
                    let csp = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!], "\(page)")
                    #expect(csp.contains("script-src 'self'") && csp.contains("default-src 'none'") && !csp.contains("unsafe-inline"), "\(csp)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                    let html = response.text
                    #expect(html.contains("data-page=\"\(page)\""), "\(page)")
                    let prefix = try Self.staticPrefix(in: html)
                    #expect(html.contains("<script type=\"module\" src=\"\(prefix)/js/app.js\"></script>"), "\(page)")
                    // No inline script: the only <script> is the module with a src.
                    #expect(html.components(separatedBy: "<script").count == 2, "\(page)")
                    // Signed-in pages have the navigation; the sign-in page does not.
                    #expect(html.contains("href=\"/admin/transfers\"") == (page != "login"), "\(page)")
                }
            }
            try await client.execute(uri: "/admin/transfers", method: .get) { response in
                #expect(response.text.contains("<a href=\"/admin/transfers\" aria-current=\"page\">Transfers</a>"))
            }
        }
    }

    @Test("/admin sends the browser to the overview")
    func rootRedirects() async throws {
        try await withTestHub(on: .sqlite) { _, client in
            try await client.execute(uri: "/admin", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/admin/overview")
            }
        }
    }

    @Test("assets are served with their types and cached as immutable; another version or file is 404")
    func assetsServed() async throws {
        try await withTestHub(on: .sqlite) { _, client in
            var prefix = ""
            try await client.execute(uri: "/admin/overview", method: .get) { response in
                prefix = try Self.staticPrefix(in: response.text)
            }
            let files = [
                ("js/app.js", "text/javascript; charset=utf-8"),
                ("js/pages/overview.js", "text/javascript; charset=utf-8"),
                ("js/pages/rail.js", "text/javascript; charset=utf-8"),
                ("css/console.css", "text/css; charset=utf-8"),
                ("icon.svg", "image/svg+xml"),
            ]
            for (file, type) in files {
                try await client.execute(uri: "\(prefix)/\(file)", method: .get) { response in
                    #expect(response.status == .ok, "\(file)")
                    #expect(response.headers[.contentType] == type, "\(file)")
                    #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable", "\(file)")
                    #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(file)")
                    #expect(response.body.readableBytes > 100, "\(file)")
                }
            }
            for uri in ["\(prefix)/js/missing.js", "/admin/static/0000000000000000/js/app.js", "\(prefix)/../templates/layout.mustache"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
                }
            }
            try await client.execute(uri: "/admin/no-such-page", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("JavaScript never writes markup from data: no innerHTML, insertAdjacentHTML or document.write")
    func scriptsAvoidMarkupSinks() async throws {
        try await withTestHub(on: .sqlite) { _, client in
            var prefix = ""
            try await client.execute(uri: "/admin/overview", method: .get) { response in
                prefix = try Self.staticPrefix(in: response.text)
            }
            let scripts = ["api", "app", "chart", "money", "ui"].map { "js/\($0).js" }
            let pages = ["accounts", "assets", "events", "login", "overview", "plugins", "rail", "transfers", "users", "webhooks"]
            let all = scripts + pages.map { "js/pages/\($0).js" }
            for script in all {
                try await client.execute(uri: "\(prefix)/\(script)", method: .get) { response in
                    #expect(response.status == .ok, "\(script)")
                    for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
                        #expect(!response.text.contains(sink), "\(script) uses \(sink)")
                    }
                }
            }
        }
    }
}
