import CSodium
import Foundation
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubKernel

/// Identity over HTTP with real tokens: no test authenticator here.
@Suite("identity API", .timeLimit(.minutes(4)))
struct IdentityAPITests {
    static let password = "correct horse battery"

    /// Creates an admin directly and signs in over HTTP; returns the access and refresh tokens.
    static func signInAdmin(_ hub: Hub, _ client: any TestClientProtocol, email: String = "admin@example.test") async throws -> (
        access: String, refresh: String
    ) {
        _ = try await hub.identity.users.createAdmin(email: email, password: password)
        return try await signIn(client, email: email)
    }

    static func signIn(_ client: any TestClientProtocol, email: String, password: String = password) async throws -> (access: String, refresh: String)
    {
        try await client.execute(
            uri: "/v1/auth/login",
            method: .post,
            headers: jsonHeaders,
            body: jsonBody(["email": email, "password": password])
        ) { response in
            #expect(response.status == .ok, "\(response.text)")
            let json = try response.json()
            #expect(json["token_type"] as? String == "Bearer")
            return (try #require(json["access_token"] as? String), try #require(json["refresh_token"] as? String))
        }
    }

    static func auth(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test("login, me, refresh rotation with reuse detection, logout", arguments: TestBackend.enabled)
    func sessions(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let (access, refresh) = try await Self.signInAdmin(hub, client)
            try await client.execute(uri: "/v1/users/me", method: .get, headers: Self.auth(access)) { response in
                #expect(response.status == .ok)
                #expect(response.object["email"] as? String == "admin@example.test")
                #expect(response.object["roles"] as? [String] == ["admin"])
            }
            // The same error for a wrong password and an unknown email.
            for body in [
                ["email": "admin@example.test", "password": "wrong password!"], ["email": "nobody@example.test", "password": "wrong password!"],
            ] {
                try await client.execute(uri: "/v1/auth/login", method: .post, headers: jsonHeaders, body: jsonBody(body)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.object["code"] as? String == "invalid_credentials")
                }
            }
            var newRefresh = ""
            try await client.execute(uri: "/v1/auth/refresh", method: .post, headers: jsonHeaders, body: jsonBody(["refresh_token": refresh])) {
                response in
                #expect(response.status == .ok)
                newRefresh = try #require(try response.json()["refresh_token"] as? String)
            }
            // The old refresh token again: reuse, and the whole session ends.
            try await client.execute(uri: "/v1/auth/refresh", method: .post, headers: jsonHeaders, body: jsonBody(["refresh_token": refresh])) {
                response in
                #expect(response.status == .unauthorized)
                #expect(response.object["code"] as? String == "refresh_reused")
            }
            try await client.execute(uri: "/v1/auth/refresh", method: .post, headers: jsonHeaders, body: jsonBody(["refresh_token": newRefresh])) {
                #expect($0.status == .unauthorized)
            }
            let second = try await Self.signIn(client, email: "admin@example.test")
            try await client.execute(uri: "/v1/auth/logout", method: .post, headers: jsonHeaders, body: jsonBody(["refresh_token": second.refresh])) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/v1/auth/refresh", method: .post, headers: jsonHeaders, body: jsonBody(["refresh_token": second.refresh]))
            {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/v1/users/me", method: .get, headers: Self.auth("not.a.jwt")) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
            }
        }
    }

    @Test("who creates and sees whom: admins anyone, organisers members they made, members only themselves", arguments: TestBackend.enabled)
    func userMatrix(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let admin = try await Self.signInAdmin(hub, client)
            func create(_ email: String, roles: [String], by token: String) async throws -> (HTTPResponse.Status, String?) {
                try await client.execute(
                    uri: "/v1/users",
                    method: .post,
                    headers: Self.auth(token) + jsonHeaders,
                    body: jsonBody(["email": email, "display_name": email, "roles": roles, "password": Self.password])
                ) { ($0.status, $0.object["id"] as? String) }
            }
            let (status, organiserID) = try await create("org@example.test", roles: ["organiser"], by: admin.access)
            #expect(status == .created)
            let organiser = try await Self.signIn(client, email: "org@example.test")
            #expect(try await create("org2@example.test", roles: ["organiser"], by: organiser.access).0 == .forbidden)
            let (memberStatus, memberID) = try await create("member@example.test", roles: ["member"], by: organiser.access)
            #expect(memberStatus == .created)
            #expect(try await create("member@example.test", roles: ["member"], by: admin.access).0 == .conflict)
            let member = try await Self.signIn(client, email: "member@example.test")
            #expect(try await create("x@example.test", roles: ["member"], by: member.access).0 == .forbidden)
            #expect(try await create("not an email", roles: ["member"], by: admin.access).0 == .unprocessableContent)

            let memberPath = "/v1/users/\(try #require(memberID))"
            try await client.execute(uri: memberPath, method: .get, headers: Self.auth(organiser.access)) { #expect($0.status == .ok) }
            try await client.execute(uri: memberPath, method: .get, headers: Self.auth(member.access)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/users/\(try #require(organiserID))", method: .get, headers: Self.auth(member.access)) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/v1/users", method: .get, headers: Self.auth(member.access)) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/v1/users", method: .get, headers: Self.auth(admin.access)) { response in
                #expect((response.object["data"] as? [Any])?.count == 3)
            }
            // A member makes their own wallet and nobody else's.
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.auth(admin.access) + jsonHeaders,
                body: jsonBody(["code": "EVT", "scale": 2, "name": "Event"])
            ) { #expect($0.status == .created) }
            try await client.execute(uri: "\(memberPath)/wallets/EVT", method: .put, headers: Self.auth(member.access)) {
                #expect($0.status == .created)
            }
            try await client.execute(uri: "\(memberPath)/wallets/EVT", method: .put, headers: Self.auth(member.access)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/users/\(organiserID!)/wallets/EVT", method: .put, headers: Self.auth(member.access)) {
                #expect($0.status == .notFound)
            }
        }
    }

    @Test("API keys: shown once, scoped, revocable; a key cannot make keys", arguments: TestBackend.enabled)
    func apiKeys(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let admin = try await Self.signInAdmin(hub, client)
            var key = ""
            var keyID = ""
            try await client.execute(
                uri: "/v1/api-keys",
                method: .post,
                headers: Self.auth(admin.access) + jsonHeaders,
                body: jsonBody(["name": "reporting", "scopes": ["ledger:read"]])
            ) { response in
                #expect(response.status == .created)
                key = try #require(try response.json()["key"] as? String)
                keyID = try #require(try response.json()["id"] as? String)
            }
            try await client.execute(uri: "/v1/api-keys", method: .get, headers: Self.auth(admin.access)) { response in
                #expect(!response.text.contains(key))
                #expect((response.object["data"] as? [Any])?.count == 1)
            }
            try await client.execute(uri: "/v1/assets", method: .get, headers: Self.auth(key)) { #expect($0.status == .ok) }
            try await client.execute(
                uri: "/v1/assets",
                method: .post,
                headers: Self.auth(key) + jsonHeaders,
                body: jsonBody(["code": "EVT", "scale": 2, "name": "Event"])
            ) { response in
                #expect(response.status == .forbidden)
                #expect(response.object["code"] as? String == "insufficient_scope")
            }
            try await client.execute(
                uri: "/v1/api-keys",
                method: .post,
                headers: Self.auth(key) + jsonHeaders,
                body: jsonBody(["name": "again", "scopes": ["ledger:read"]])
            ) { #expect($0.status == .forbidden) }
            try await client.execute(
                uri: "/v1/api-keys",
                method: .post,
                headers: Self.auth(admin.access) + jsonHeaders,
                body: jsonBody(["name": "bad", "scopes": ["root"]])
            ) { #expect($0.status == .unprocessableContent) }
            try await client.execute(uri: "/v1/api-keys/\(keyID)", method: .delete, headers: Self.auth(admin.access)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/assets", method: .get, headers: Self.auth(key)) { #expect($0.status == .unauthorized) }
        }
    }

    @Test("the bootstrap token makes the first admin once; wallet sign-in works through a registered scheme", arguments: TestBackend.enabled)
    func bootstrapAndWallet(backend: TestBackend) async throws {
        try await withTestHub(on: backend, realIdentity: true) { hub, client in
            let token = try #require(try await hub.identity.users.bootstrapIfNoAdmin())
            let body = jsonBody(["token": token, "email": "first@example.test", "password": Self.password])
            try await client.execute(uri: "/v1/auth/bootstrap", method: .post, headers: jsonHeaders, body: body) { #expect($0.status == .created) }
            try await client.execute(uri: "/v1/auth/bootstrap", method: .post, headers: jsonHeaders, body: body) { #expect($0.status.code >= 400) }
            #expect(try await hub.identity.users.bootstrapIfNoAdmin() == nil)

            hub.identity.wallets.schemes.register(TestEd25519Scheme())
            let wallet = TestWallet()
            var nonce = ""
            var message = ""
            try await client.execute(
                uri: "/v1/auth/wallet/challenge",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["scheme": "test-ed25519", "address": wallet.address])
            ) { response in
                #expect(response.status == .created, "\(response.text)")
                nonce = try #require(try response.json()["nonce"] as? String)
                message = try #require(try response.json()["message"] as? String)
            }
            let badSignature = "0x" + String(repeating: "00", count: 64)
            try await client.execute(
                uri: "/v1/auth/wallet/login",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["nonce": nonce, "signature": badSignature])
            ) { #expect($0.status == .unauthorized) }
            let signature = "0x" + wallet.sign(message).map { String(format: "%02x", $0) }.joined()
            try await client.execute(
                uri: "/v1/auth/wallet/login",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["nonce": nonce, "signature": signature])
            ) { response in
                #expect(response.status == .created, "\(response.text)")
                #expect((response.object["user"] as? [String: Any])?["roles"] as? [String] == ["member"])
            }
            try await client.execute(
                uri: "/v1/auth/wallet/login",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["nonce": nonce, "signature": signature])
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(response.object["code"] as? String == "challenge_used")
            }
            try await client.execute(
                uri: "/v1/auth/wallet/challenge",
                method: .post,
                headers: jsonHeaders,
                body: jsonBody(["scheme": "no-such-scheme", "address": "x"])
            ) { #expect($0.status == .unprocessableContent) }
        }
    }

    @Test("a crowd behind one address all sign in; guessing one account from it gets 429 with Retry-After")
    func signInLimits() async throws {
        try await withTestHub(on: .sqlite, realIdentity: true) { hub, client in
            // Forty attendees through one Wi-Fi address (the test client's), some mistyping once.
            let (admin, _) = try await Self.signInAdmin(hub, client)
            let creator = try await hub.identity.authenticate(bearer: admin)
            for index in 0..<40 {
                let email = "guest\(index)@example.test"
                _ = try await hub.identity.users.create(
                    NewUser(email: email, displayName: "Guest \(index)", roles: [.member], password: Self.password),
                    by: creator
                )
                if index.isMultiple(of: 4) {
                    try await client.execute(
                        uri: "/v1/auth/login",
                        method: .post,
                        headers: jsonHeaders,
                        body: jsonBody(["email": email, "password": "typo password!"])
                    ) { #expect($0.status == .unauthorized) }
                }
                _ = try await Self.signIn(client, email: email)
            }

            var statuses: [HTTPResponse.Status] = []
            var limited: (retryAfter: String?, code: String?)?
            for password in Array(repeating: "wrong password!", count: 6) + [Self.password] {
                try await client.execute(
                    uri: "/v1/auth/login",
                    method: .post,
                    headers: jsonHeaders,
                    body: jsonBody(["email": "guest1@example.test", "password": password])
                ) { response in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests {
                        limited = (response.headers[.retryAfter], try response.json()["code"] as? String)
                    }
                }
            }
            // Five wrong guesses, then even the right password waits: the limit answers first.
            #expect(statuses.prefix(5).allSatisfy { $0 == .unauthorized }, "\(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            #expect(limited?.code == "too_many_attempts")
            #expect(limited?.retryAfter.flatMap(Int.init).map { (1...30).contains($0) } == true, "\(String(describing: limited))")
            // Everyone else from the same address still gets in.
            _ = try await Self.signIn(client, email: "guest2@example.test")
        }
    }

    @Test("dev login exists only when enabled")
    func devLogin() async throws {
        for enabled in [false, true] {
            try await withTestHub(on: .sqlite, realIdentity: true, devLogin: enabled) { hub, client in
                _ = try await hub.identity.users.createAdmin(email: "admin@example.test", password: Self.password)
                try await client.execute(
                    uri: "/v1/auth/dev-login",
                    method: .post,
                    headers: jsonHeaders,
                    body: jsonBody(["email": "admin@example.test"])
                ) { response in
                    #expect(response.status == (enabled ? .ok : .notFound))
                }
            }
        }
    }
}
