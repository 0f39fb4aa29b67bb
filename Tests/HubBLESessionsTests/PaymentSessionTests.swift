import HubKernel
import Testing

@testable import HubBLESessions

@Suite("BLE session shares and configuration")
struct PaymentSessionTests {
    static func session(amount: UInt128, shares: Int) -> PaymentSession {
        let now = LedgerTimestamp(nanoseconds: 1)
        return PaymentSession(
            id: "s",
            payeeID: UserID(rawValue: 1),
            payeeAccountID: AccountID(rawValue: 2),
            payeeDisplayName: "P",
            asset: AssetCode("EUR")!,
            amount: amount,
            splitMode: shares == 1 ? .single : .equal,
            shares: shares,
            paidShares: 0,
            heldShares: 0,
            status: .advertising,
            eid: EphemeralID(hex: "0102030405")!,
            eidIssuedAt: now,
            createdAt: now,
            expiresAt: now,
            endedAt: nil
        )
    }

    @Test("equal shares add up to the amount exactly and differ by at most one unit")
    func sharesAreExact() {
        var generator = SystemRandomNumberGenerator()
        let amounts: [UInt128] =
            [2, 3, 7, 100, 1001, UInt128.max, UInt128.max - 1] + (0..<200).map { _ in UInt128(UInt64.random(in: 2...1_000_000, using: &generator)) }
        for amount in amounts {
            for shares in [2, 3, 7, 10, 99, 100] where amount >= UInt128(shares) {
                let session = Self.session(amount: amount, shares: shares)
                let parts = (0..<shares).map(session.shareAmount)
                var total: UInt128 = 0
                for part in parts {
                    let (sum, overflow) = total.addingReportingOverflow(part)
                    #expect(!overflow)
                    total = sum
                }
                #expect(total == amount, "amount \(amount) in \(shares) shares")
                #expect(parts.max()! - parts.min()! <= 1)
                #expect(parts.min()! >= 1)
            }
        }
        #expect(Self.session(amount: 1000, shares: 3).shareAmount(0) == 334)
        #expect(Self.session(amount: 1000, shares: 3).shareAmount(2) == 333)
    }

    @Test("the status follows the shares until the session ends")
    func statusFromShares() {
        var session = Self.session(amount: 900, shares: 3)
        session.heldShares = 1
        session.settleStatus()
        #expect(session.status == .advertising)
        session.heldShares = 3
        session.settleStatus()
        #expect(session.status == .locked)
        session.heldShares = 1
        session.paidShares = 1
        session.settleStatus()
        #expect(session.status == .partiallyPaid)
        session.heldShares = 2
        session.settleStatus()
        #expect(session.status == .locked)
        session.heldShares = 0
        session.paidShares = 3
        session.settleStatus()
        #expect(session.status == .paid)
        session.status = .cancelled
        session.paidShares = 0
        session.settleStatus()
        #expect(session.status == .cancelled)
    }

    @Test("configuration: defaults, ranges named by field, unknown members refused")
    func configuration() throws {
        let defaults = try BLESessionsConfiguration(PluginConfig())
        #expect(defaults.sessionTTLSeconds == 300)
        #expect(defaults.lockTTLSeconds == 60)
        #expect(!defaults.gotchuCompatible)
        let custom = try BLESessionsConfiguration(PluginConfig(json: #"{"default_asset":"EUR","gotchu_compatible":true,"lock_ttl_seconds":30}"#))
        #expect(custom.defaultAsset == AssetCode("EUR"))
        #expect(custom.lockTTLSeconds == 30)
        let failures: [(String, String)] = [
            (#"{"lock_ttl_seconds":1}"#, "lock_ttl_seconds"),
            (#"{"session_ttl_seconds":7200}"#, "session_ttl_seconds"),
            (#"{"eid_rotation_seconds":2}"#, "eid_rotation_seconds"),
            (#"{"gotchu_compatible":true}"#, "default_asset"),
            (#"{"default_asset":"not an asset"}"#, "default_asset"),
        ]
        for (json, field) in failures {
            #expect(throws: PluginConfigError.self, "\(json)") { try BLESessionsConfiguration(PluginConfig(json: json)) }
            do {
                _ = try BLESessionsConfiguration(PluginConfig(json: json))
            } catch let error as PluginConfigError {
                #expect(error.field == field, "\(json)")
            }
        }
        #expect(throws: (any Error).self) { try BLESessionsConfiguration(PluginConfig(json: #"{"sesion_ttl_seconds":60}"#)) }
    }
}
