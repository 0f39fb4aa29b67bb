import HubKernel
import HubTestSupport
import Testing

@Suite("Identity rules")
struct IdentityRulesTests {
    /// Every creator against every kind of new user, written out rather than re-derived.
    static let matrix: [(creator: Set<Role>, allowed: [Set<Role>])] = [
        ([.admin], [[.admin], [.organiser], [.member], [.organiser, .member], [.admin, .member]]),
        ([.admin, .member], [[.admin], [.organiser], [.member], [.organiser, .member], [.admin, .member]]),
        ([.organiser], [[.member]]),
        ([.organiser, .member], [[.member]]),
        ([.member], []),
        ([], []),
    ]
    static let candidates: [Set<Role>] = [[], [.admin], [.organiser], [.member], [.organiser, .member], [.admin, .member]]

    @Test("who may create whom", arguments: matrix)
    func creationMatrix(creator: Set<Role>, allowed: [Set<Role>]) {
        for newRoles in Self.candidates {
            #expect(RoleRules.mayCreate(newRoles, by: creator) == allowed.contains(newRoles), "\(creator) creating \(newRoles)")
        }
    }

    @Test("the named cases of the rule")
    func namedCases() {
        #expect(RoleRules.mayCreate([.admin], by: [.admin]))
        #expect(RoleRules.mayCreate([.organiser], by: [.admin]))
        #expect(RoleRules.mayCreate([.member], by: [.organiser]))
        #expect(!RoleRules.mayCreate([.organiser], by: [.organiser]))
        #expect(!RoleRules.mayCreate([.admin], by: [.organiser]))
        #expect(!RoleRules.mayCreate([.member], by: [.member]))
        #expect(throws: IdentityError(.forbidden, "", field: "roles")) { try RoleRules.checkCreate([.admin], by: [.member]) }
    }

    @Test("scopes parse, and unknown ones are refused")
    func scopes() throws {
        for scope in APIScope.all { #expect(try APIScope(validating: scope.rawValue) == scope) }
        #expect(throws: IdentityError(.unknownScope, "", field: "scopes")) { try APIScope(validating: "ledger:delete") }
        #expect(throws: IdentityError(.unknownRole, "", field: "roles")) { try Role(validating: "owner") }
    }

    @Test("a principal needs both the role and, for a key, the scope")
    func principal() throws {
        let id = UserID.random()
        let member = Principal(userID: id, roles: [.member], credential: .accessToken(tokenID: "t"), scopes: nil)
        #expect(member.allows(scope: .ledgerWrite))
        #expect(!member.allows(scope: .usersWrite), "a member's token cannot use users:write")
        #expect(!member.isAdmin)

        let adminKey = Principal(userID: id, roles: [.admin], credential: .apiKey(APIKeyID("0123456789abcdef")!), scopes: [.ledgerRead])
        #expect(adminKey.allows(scope: .ledgerRead))
        #expect(!adminKey.allows(scope: .ledgerWrite), "a narrow key of an admin stays narrow")
        #expect(!adminKey.allows(scope: .eventsRead), "a narrow key of an admin stays narrow")
        #expect(adminKey.isAdmin, "what the admin may do with it is what its scopes name")
        #expect(adminKey.has(.admin))

        let wideKey = Principal(userID: id, roles: [.admin], credential: .apiKey(APIKeyID("0123456789abcdef")!), scopes: [.admin])
        #expect(wideKey.allows(scope: .webhooksWrite))
        #expect(wideKey.isAdmin)

        let demoted = Principal(userID: id, roles: [.member], credential: .apiKey(APIKeyID("0123456789abcdef")!), scopes: [.admin])
        #expect(!demoted.allows(scope: .usersRead), "a key never exceeds its user's current roles")
    }

    @Test(
        "emails are normalised and checked",
        arguments: [
            ("  Ann.Lee@Example.ORG ", "ann.lee@example.org"), ("a+tag@sub.example.co", "a+tag@sub.example.co"),
            ("x@xn--bcher-kva.example", "x@xn--bcher-kva.example"),
        ]
    )
    func emails(input: String, normalised: String) throws {
        #expect(try EmailAddress.normalise(input) == normalised)
    }

    @Test(
        "malformed emails are refused",
        arguments: [
            "", "ann", "ann@", "@example.org", "ann@example", "ann@@example.org", "a b@example.org", "ann@-x.org", "ann..lee@example.org",
            "ann@exa_mple.org", "änn@example.org", "ann@exam\nple.org",
        ]
    )
    func badEmails(input: String) {
        #expect(throws: IdentityError(.invalidEmail, "", field: "email")) { try EmailAddress.normalise(input) }
    }
}
