import Foundation
import HubKernel
import HubTestSupport
import Testing

@Suite("Identity wallet sign-in", .timeLimit(.minutes(4)))
struct IdentityWalletTests {
    func withWallets(on backend: TestBackend, clock: ManualClock = ManualClock(), _ body: (Identity) async throws -> Void) async throws {
        try await withIdentity(
            on: backend,
            clock: clock,
            configure: {
                $0.hubName = "Festival Hub"
                $0.domain = "pay.example.org"
            }
        ) { identity in
            identity.wallets.schemes.register(TestEd25519Scheme())
            try await body(identity)
        }
    }

    @Test("a signed challenge signs in, creating a member once and linking the address", arguments: TestBackend.enabled)
    func signIn(backend: TestBackend) async throws {
        try await withWallets(on: backend) { identity in
            let wallet = TestWallet()
            let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address.uppercased())
            #expect(challenge.address == wallet.address, "the scheme normalises the address")
            #expect(challenge.message.hasPrefix("pay.example.org wants you to sign in with your test-ed25519 account:\n\(wallet.address)\n"))
            #expect(challenge.message.contains("Festival Hub"))
            #expect(challenge.message.contains("Nonce: \(challenge.nonce)"))
            #expect(challenge.message.contains("Expiration Time: "))
            #expect(challenge.expiresAt.timeIntervalSince(challenge.issuedAt) == 300)

            let first = try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message))
            #expect(first.created)
            #expect(first.user.roles == [.member])
            #expect(first.user.email == nil)
            #expect(!first.user.hasPassword)
            #expect(try await identity.authenticate(bearer: first.tokens.accessToken).userID == first.user.id)

            let again = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let second = try await identity.wallets.login(nonce: again.nonce, signature: wallet.sign(again.message))
            #expect(!second.created)
            #expect(second.user.id == first.user.id)

            #expect(try await identity.events("identity.wallet.linked").count == 1)
            #expect(try await identity.events("identity.user.created").count == 1)
            let links = try await identity.wallets.links(for: first.user.id)
            #expect(links.map(\.address) == [wallet.address])
        }
    }

    @Test("a wrong signature is refused and leaves the challenge open", arguments: TestBackend.enabled)
    func badSignature(backend: TestBackend) async throws {
        try await withWallets(on: backend) { identity in
            let wallet = TestWallet()
            let impostor = TestWallet()
            let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let before = try await identity.snapshot()
            for signature in [impostor.sign(challenge.message), wallet.sign(challenge.message + " "), [], [UInt8](repeating: 0, count: 64)] {
                await expectIdentityError(.invalidSignature) { try await identity.wallets.login(nonce: challenge.nonce, signature: signature) }
            }
            #expect(try await identity.snapshot() == before)
            _ = try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message))
        }
    }

    @Test("a challenge answers once: a replay, even concurrent, is refused", arguments: TestBackend.enabled)
    func replay(backend: TestBackend) async throws {
        try await withWallets(on: backend) { identity in
            let wallet = TestWallet()
            let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let signature = wallet.sign(challenge.message)
            let results = await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            _ = try await identity.wallets.login(nonce: challenge.nonce, signature: signature)
                            return nil
                        } catch { return error }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 1)
            #expect(results.compactMap { $0 as? IdentityError }.allSatisfy { $0.code == .challengeUsed })
            await expectIdentityError(.challengeUsed) { try await identity.wallets.login(nonce: challenge.nonce, signature: signature) }
            #expect(try await identity.count("hub_users") == 1)
        }
    }

    @Test("an expired or unknown challenge is refused", arguments: TestBackend.enabled)
    func expiry(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withWallets(on: backend, clock: clock) { identity in
            let wallet = TestWallet()
            let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            clock.advance(seconds: 300)
            await expectIdentityError(.challengeExpired) {
                try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message))
            }
            await expectIdentityError(.challengeUnknown) {
                try await identity.wallets.login(nonce: "00000000000000000000000000000000", signature: wallet.sign(challenge.message))
            }
            #expect(try await identity.count("hub_users") == 0)
        }
    }

    @Test("an unknown scheme or a malformed address gets no challenge", arguments: TestBackend.enabled)
    func unknownScheme(backend: TestBackend) async throws {
        try await withWallets(on: backend) { identity in
            let before = try await identity.snapshot()
            await expectIdentityError(.unknownScheme) { try await identity.wallets.challenge(scheme: "sr25519", address: "5Grw") }
            await expectIdentityError(.invalidAddress) { try await identity.wallets.challenge(scheme: "test-ed25519", address: "0xabc") }
            #expect(try await identity.snapshot() == before)
            #expect(identity.wallets.schemes.schemes == ["test-ed25519"])
        }
    }

    @Test("a signed-in user links a wallet; another user cannot take it", arguments: TestBackend.enabled)
    func link(backend: TestBackend) async throws {
        try await withWallets(on: backend) { identity in
            let (admin, root) = try await identity.makeAdmin()
            let other = try await identity.makeUser("other@example.org", roles: [.member], by: root)
            let wallet = TestWallet()

            var challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let link = try await identity.wallets.link(nonce: challenge.nonce, signature: wallet.sign(challenge.message), to: admin.id)
            #expect(link.userID == admin.id)

            challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let signedIn = try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message))
            #expect(signedIn.user.id == admin.id)
            #expect(!signedIn.created)

            challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            await expectIdentityError(.walletLinkedElsewhere) {
                try await identity.wallets.link(nonce: challenge.nonce, signature: wallet.sign(challenge.message), to: other.id)
            }
        }
    }
}
