import Foundation
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubKernel

/// Issue #12, access: sessions that end, keys whose scopes mean what they say, and who manages
/// whom. Real tokens and keys throughout (no test authenticator).
@Suite("security: access", .timeLimit(.minutes(3)))
struct AccessSecurityTests {
    typealias API = IdentityAPITests

    static func me(_ client: any TestClientProtocol, _ token: String) async throws -> HTTPResponse.Status {
        try await client.execute(uri: "/v1/users/me", method: .get, headers: API.auth(token)).status
    }

    /// Creates a user through the API as `creator` and signs them in.
    static func user(_ client: any TestClientProtocol, _ email: String, roles: [String], by creator: String) async throws -> (
        id: String, access: String, refresh: String
    ) {
        let created = try await client.execute(
            uri: "/v1/users",
            method: .post,
            headers: API.auth(creator) + jsonHeaders,
            body: jsonBody(["email": email, "display_name": "Someone", "roles": roles, "password": API.password])
        )
        #expect(created.status == .created, "\(created.text)")
        let (access, refresh) = try await API.signIn(client, email: email)
        return (try #require(created.object["id"] as? String), access, refresh)
    }

    @Test("#7 ending a session refuses its access tokens: logout, refresh reuse, disabling the user", arguments: TestBackend.enabled)
    func endedSessionsRefuseTheirTokens(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let (admin, _) = try await API.signInAdmin(hub, client)

            // Logout: the session's access token stops, another session of the same user goes on.
            let alice = try await Self.user(client, "alice@example.test", roles: ["member"], by: admin)
            let (otherAccess, _) = try await API.signIn(client, email: "alice@example.test")
            #expect(try await Self.me(client, alice.access) == .ok)
            let logout = try await client.execute(
                uri: "/v1/auth/logout",
                method: .post,
                headers: API.auth(alice.access) + jsonHeaders,
                body: jsonBody(["refresh_token": alice.refresh])
            )
            #expect(logout.status == .noContent)
            let after = try await client.execute(uri: "/v1/users/me", method: .get, headers: API.auth(alice.access))
            #expect(after.status == .unauthorized)
            #expect(after.object["code"] as? String == "token_revoked")
            #expect(try await Self.me(client, otherAccess) == .ok)

            // A reused refresh token ends the session it belongs to, access tokens included.
            let bob = try await Self.user(client, "bob@example.test", roles: ["member"], by: admin)
            let rotated = try await client.execute(
                uri: "/v1/auth/refresh",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["refresh_token": bob.refresh])
            )
            let rotatedAccess = try #require(rotated.object["access_token"] as? String)
            #expect(try await Self.me(client, rotatedAccess) == .ok)
            let reuse = try await client.execute(
                uri: "/v1/auth/refresh",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["refresh_token": bob.refresh])
            )
            #expect(reuse.status == .unauthorized)
            #expect(try await Self.me(client, rotatedAccess) == .unauthorized)
            #expect(try await Self.me(client, bob.access) == .unauthorized)

            // An admin disables a user: tokens and keys stop; enabling lets them sign in again.
            let carol = try await Self.user(client, "carol@example.test", roles: ["member"], by: admin)
            let key = try await client.execute(
                uri: "/v1/api-keys",
                method: .post,
                headers: API.auth(carol.access) + jsonHeaders,
                body: jsonBody(["name": "script", "scopes": ["ledger:read"]])
            )
            let carolKey = try #require(key.object["key"] as? String)
            #expect(try await Self.me(client, carolKey) == .ok)
            let disabled = try await client.execute(uri: "/v1/users/\(carol.id)/disable", method: .post, headers: API.auth(admin))
            #expect(disabled.status == .ok, "\(disabled.text)")
            #expect(disabled.object["disabled"] as? Bool == true)
            #expect(try await Self.me(client, carol.access) == .unauthorized)
            #expect(try await Self.me(client, carolKey) == .unauthorized)
            #expect(try await client.execute(uri: "/v1/users/\(carol.id)/enable", method: .post, headers: API.auth(admin)).status == .ok)
            #expect(try await Self.me(client, carolKey) == .ok)
            _ = try await API.signIn(client, email: "carol@example.test")
        }
    }

    @Test("#7 admins change roles and disable users; organisers manage and list only the members they created", arguments: TestBackend.enabled)
    func managingUsers(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let (admin, _) = try await API.signInAdmin(hub, client)
            let organiser = try await Self.user(client, "org@example.test", roles: ["organiser"], by: admin)
            let mine = try await Self.user(client, "mine@example.test", roles: ["member"], by: organiser.access)
            let theirs = try await Self.user(client, "theirs@example.test", roles: ["member"], by: admin)

            let listed = try await client.execute(uri: "/v1/users", method: .get, headers: API.auth(organiser.access))
            #expect(listed.status == .ok, "\(listed.text)")
            let ids = (try listed.json()["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids == [mine.id])
            let all = try await client.execute(uri: "/v1/users", method: .get, headers: API.auth(admin))
            #expect((try all.json()["data"] as? [[String: Any]])?.count == 4)

            // The organiser disables their own member, not somebody else's (404: not theirs to see).
            #expect(try await client.execute(uri: "/v1/users/\(mine.id)/disable", method: .post, headers: API.auth(organiser.access)).status == .ok)
            #expect(
                try await client.execute(uri: "/v1/users/\(theirs.id)/disable", method: .post, headers: API.auth(organiser.access)).status
                    == .notFound
            )
            #expect(try await Self.me(client, theirs.access) == .ok)
            // Roles: admins only; the last admin cannot demote themself.
            func patch(_ id: String, _ roles: [String], as token: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v1/users/\(id)",
                    method: .patch,
                    headers: API.auth(token) + jsonHeaders,
                    body: jsonBody(["roles": roles])
                )
            }
            #expect(try await patch(mine.id, ["organiser"], as: organiser.access).status == .forbidden)
            let promoted = try await patch(theirs.id, ["organiser"], as: admin)
            #expect(promoted.status == .ok, "\(promoted.text)")
            #expect(promoted.object["roles"] as? [String] == ["organiser"])
            let me = try await client.execute(uri: "/v1/users/me", method: .get, headers: API.auth(theirs.access))
            #expect(me.object["roles"] as? [String] == ["organiser"])
            let adminID = try #require(try await client.execute(uri: "/v1/users/me", method: .get, headers: API.auth(admin)).object["id"] as? String)
            let lastAdmin = try await patch(adminID, ["member"], as: admin)
            #expect(lastAdmin.status == .conflict, "\(lastAdmin.text)")
            #expect(lastAdmin.object["code"] as? String == "last_admin")
        }
    }

    @Test("#8 an admin's narrow API key works for exactly the scopes it names", arguments: TestBackend.enabled)
    func scopesGrantWhatTheyName(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let (admin, _) = try await API.signInAdmin(hub, client)
            func key(_ scopes: [String]) async throws -> String {
                let created = try await client.execute(
                    uri: "/v1/api-keys",
                    method: .post,
                    headers: API.auth(admin) + jsonHeaders,
                    body: jsonBody(["name": scopes.joined(separator: "+"), "scopes": scopes])
                )
                return try #require(created.object["key"] as? String, "\(created.text)")
            }
            let cases: [(scope: String, uri: String)] = [
                ("events:read", "/v1/events"), ("webhooks:read", "/v1/webhooks"), ("users:read", "/v1/users"),
                ("ledger:read", "/v1/ledger/stats?bucket=hour"),
            ]
            for (scope, uri) in cases {
                let narrow = try await key([scope])
                let granted = try await client.execute(uri: uri, method: .get, headers: API.auth(narrow))
                #expect(granted.status == .ok, "\(scope) on \(uri): \(granted.text)")
                // …and nothing else: every other case's endpoint refuses it.
                for (other, otherURI) in cases where other != scope {
                    let refused = try await client.execute(uri: otherURI, method: .get, headers: API.auth(narrow))
                    #expect(refused.status == .forbidden, "\(scope) key on \(otherURI): \(refused.status)")
                }
            }
            // A narrow key cannot write, nor revoke other users' keys.
            let reader = try await key(["events:read"])
            let write = try await client.execute(
                uri: "/v1/webhooks",
                method: .post,
                headers: API.auth(reader) + jsonHeaders,
                body: jsonBody(["url": "https://example.com/hook"])
            )
            #expect(write.status == .forbidden)
        }
    }

    @Test("#10 names that would read as something else are refused; names are stored in NFC", arguments: TestBackend.enabled)
    func spoofableNames(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let (admin, _) = try await API.signInAdmin(hub, client)
            for (index, name) in ["\u{202E}evil\u{202C}", "Pay\u{200B}Pal", "\u{2066}shop\u{2069}", "\u{3164}"].enumerated() {
                let user = try await client.execute(
                    uri: "/v1/users",
                    method: .post,
                    headers: API.auth(admin) + jsonHeaders,
                    body: jsonBody(["email": "spoof\(index)@example.test", "display_name": name])
                )
                #expect(user.status == .unprocessableContent, "\(name.unicodeScalars.map(\.value)): \(user.text)")
                #expect(user.object["field"] as? String == "display_name")
                let asset = try await client.execute(
                    uri: "/v1/assets",
                    method: .post,
                    headers: API.auth(admin) + jsonHeaders,
                    body: jsonBody(["code": "SPOOF\(index)", "scale": 2, "name": name])
                )
                #expect(asset.status == .unprocessableContent, "\(asset.text)")
            }
            #expect(try await hub.identity.users.user(email: "spoof0@example.test") == nil)
            let decomposed = try await client.execute(
                uri: "/v1/users",
                method: .post,
                headers: API.auth(admin) + jsonHeaders,
                body: jsonBody(["email": "nfc@example.test", "display_name": "Cafe\u{301} Luna"])
            )
            #expect(decomposed.status == .created)
            #expect(decomposed.object["display_name"] as? String == "Caf\u{E9} Luna")
        }
    }
}
