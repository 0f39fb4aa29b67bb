import HubKernel
import Testing

@testable import HubBLESessions

@Suite("BLE sessions: wallets known to exist")
struct KnownWalletsTests {
    @Test("a wallet seen is known; when full the set starts over instead of growing")
    func boundedSet() {
        let known = KnownWallets(limit: 3)
        let wallets = (1...4).map { AccountID(rawValue: UInt128($0)) }
        #expect(!known.contains(wallets[0]))
        for wallet in wallets.prefix(3) { known.insert(wallet) }
        #expect(wallets.prefix(3).allSatisfy(known.contains))
        known.insert(wallets[3])
        #expect(known.contains(wallets[3]))
        #expect(!wallets.prefix(3).contains(where: known.contains))
    }
}
