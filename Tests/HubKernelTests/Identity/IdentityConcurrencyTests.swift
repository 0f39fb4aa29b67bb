import HubKernel
import HubTestSupport
import Logging
import Testing

@Suite("Identity concurrency", .timeLimit(.minutes(4)))
struct IdentityConcurrencyTests {
    @Test("two concurrent creations with one email: exactly one succeeds", arguments: TestBackend.enabled)
    func sameEmail(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            for round in 0..<5 {
                let email = "race\(round)@example.org"
                let outcomes = await withTaskGroup(of: IdentityError.Code?.self) { group in
                    for variant in [email, email.uppercased()] {
                        group.addTask {
                            do {
                                _ = try await identity.makeUser(variant, roles: [.member], by: root)
                                return nil
                            } catch let error as IdentityError {
                                return error.code
                            } catch {
                                return IdentityError.Code.forbidden
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == nil }.count == 1)
                #expect(outcomes.contains(.emailTaken))
            }
            #expect(try await identity.count("hub_users") == 6)
        }
    }

    @Test("two processes' worth of writers on one database create one user per email", arguments: TestBackend.enabled)
    func twoInstances(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            // A second Database (its own writer connection) stands in for a second hubd process.
            let second = try await Database.open(identity.database.url, readerCount: 1)
            let other = Identity(
                database: second,
                configuration: identity.configuration,
                clock: identity.clock,
                secrets: SecretsVault(database: second, keyFile: identity.secrets.keyFile, logger: .init(label: "test")),
                logger: .init(label: "test")
            )
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for instance in [identity, other] {
                    group.addTask { (try? await instance.makeUser("twin@example.org", roles: [.member], by: root)) != nil }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            await second.close()
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await identity.count("hub_users") == 2)
        }
    }
}
