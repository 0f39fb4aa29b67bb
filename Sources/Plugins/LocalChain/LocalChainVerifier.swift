import ChainKit
import EVMKit
public import HubKernel

/// What `hubd verify` checks of every local chain, read in one snapshot:
/// 1. each account's chain balance equals its ledger account's (credits − debits posted, nothing
///    pending), and the validator's chain balance is zero;
/// 2. the chain's balances sum to what the asset's issuance account has issued;
/// 3. the blocks form one hash chain from the genesis to the head, each signed by the validator
///    and matching its own roots, and the head's state root commits to the current state.
public enum LocalChainVerifier {
    public struct Report: Sendable {
        public var chains = 0
        public var accounts = 0
        public var blocks = 0
        public var problems: [String] = []
    }

    /// `nil` when the rail's tables do not exist (the rail never ran on this database).
    public static func verify(_ database: Database) async throws -> Report? {
        try await database.read { connection in
            let exists: Bool
            switch connection.dialect {
            case .sqlite:
                exists = try connection.queryFirst("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'localchain_chains'") != nil
            case .postgres:
                exists = try connection.queryFirst("SELECT 1 FROM information_schema.tables WHERE table_name = 'localchain_chains'") != nil
            }
            guard exists else { return nil }
            var report = Report()
            var after: UInt64 = 0
            while true {
                let chains = try LocalChainStore.chains(after: after, limit: 100, on: connection)
                guard let last = chains.last else { break }
                for chain in chains { try check(chain, &report, on: connection) }
                after = last.chainID
            }
            return report
        }
    }

    static func check(_ chain: LocalChain, _ report: inout Report, on connection: any SQLConnection) throws {
        report.chains += 1
        let accounts = try LocalChainStore.accounts(chainID: chain.chainID, on: connection)
        report.accounts += accounts.count
        // A relayed chain's money lives in its validator's hub: only its blocks are checked here.
        if chain.upstream == nil { try checkLedger(chain, accounts, &report, on: connection) }
        try checkBlocks(chain, accounts, &report, on: connection)
    }

    static func checkLedger(_ chain: LocalChain, _ accounts: [ChainAccount], _ report: inout Report, on connection: any SQLConnection) throws {
        let name = "chain \(chain.chainID)"
        let ledgerAccounts = try connection.selectIn(
            "SELECT id, debits_posted, credits_posted, debits_pending, credits_pending FROM ledger_accounts WHERE id",
            keys: accounts.map(\.ledgerAccountID)
        )
        var ledger: [UInt128: (UInt128, UInt128, UInt128, UInt128)] = [:]
        for row in ledgerAccounts {
            ledger[UInt128(bigEndianBytes: try row.bytes("id")) ?? 0] = (
                try row.uint128("debits_posted"), try row.uint128("credits_posted"), try row.uint128("debits_pending"),
                try row.uint128("credits_pending")
            )
        }
        for account in accounts {
            guard let (debits, credits, debitsPending, creditsPending) = ledger[account.ledgerAccountID.rawValue] else {
                report.problems.append("\(name): \(account.address) has no ledger account \(account.ledgerAccountID)")
                continue
            }
            if account.address == chain.validator {
                if account.balance != 0 { report.problems.append("\(name): the validator holds \(account.balance); it must hold nothing") }
                // The issuance account: debits − credits is what the chain has in circulation.
                let issued = debits >= credits ? debits - credits : 0
                let sum = accounts.filter { $0.address != chain.validator }.reduce(UInt128(0)) { $0 &+ $1.balance }
                if issued != sum {
                    report.problems.append("\(name): balances sum to \(sum) but the issuance account has issued \(issued)")
                }
                continue
            }
            let balance = credits >= debits ? credits - debits : 0
            if debitsPending != 0 || creditsPending != 0 || balance != account.balance || debits > credits {
                report.problems.append(
                    "\(name): \(account.address) holds \(account.balance) on the chain but its ledger account "
                        + "\(account.ledgerAccountID) holds \(credits) − \(debits) (pending \(creditsPending)/\(debitsPending))"
                )
            }
        }
    }

    /// Each account's storage root and code hash, kept with it block by block, against its stored
    /// storage and code recomputed here, so the state root proves the contracts' state too.
    static func checkCommitments(_ chain: LocalChain, _ accounts: [ChainAccount], _ report: inout Report, on connection: any SQLConnection) throws {
        let name = "chain \(chain.chainID)"
        // Only accounts that claim storage or code, or have some stored: two queries each for
        // those, none for the (many) plain accounts.
        let chainKey = Int64(clamping: chain.chainID)
        var withState = Set<String>()
        for table: SQL in ["localchain_storage", "localchain_code"] {
            for row in try connection.query("SELECT DISTINCT address FROM " + table + " WHERE chain_id = \(chainKey)") {
                withState.insert(try row.text("address"))
            }
        }
        for account in accounts where account.storageRoot != nil || account.codeHash != nil || withState.contains(account.address.description) {
            let slots = try ContractStore.slots(chainID: chain.chainID, address: account.address, on: connection)
            let root = EthereumStateRoot.storageRoot(slots.map { (slot: $0.key.bigEndianBytes, value: $0.value.bigEndianBytes) })
            if root != account.storageRoot ?? EthereumStateRoot.emptyStorageRoot {
                report.problems.append("\(name): \(account.address)'s storage root does not match its stored storage")
            }
            let code = try ContractStore.code(chainID: chain.chainID, address: account.address, on: connection)
            if Keccak256.hash(code) != account.codeHash ?? EthereumStateRoot.emptyCodeHash {
                report.problems.append("\(name): \(account.address)'s code hash does not match its stored code")
            }
        }
    }

    static func checkBlocks(_ chain: LocalChain, _ accounts: [ChainAccount], _ report: inout Report, on connection: any SQLConnection) throws {
        let name = "chain \(chain.chainID)"
        var parent = [UInt8](repeating: 0, count: 32)
        var number: UInt64 = 0
        var lastStateRoot: [UInt8] = []
        while true {
            let rows = try LocalChainStore.blocks(chainID: chain.chainID, from: number, limit: 200, on: connection)
            if rows.isEmpty { break }
            for stored in rows {
                report.blocks += 1
                guard stored.number == number else {
                    report.problems.append("\(name): block \(number) is missing")
                    return
                }
                do {
                    let block = try stored.decoded()
                    try block.verifyContents(validator: chain.validator)
                    if block.header.header.parentHash != parent || block.header.header.number != number {
                        report.problems.append("\(name): block \(number) does not link to its parent")
                    }
                    if Hex.encode(block.hash) != stored.hash { report.problems.append("\(name): block \(number) is stored under another hash") }
                    parent = block.hash
                    lastStateRoot = block.header.header.stateRoot
                } catch {
                    report.problems.append("\(name): block \(number) does not verify: \(error)")
                    return
                }
                number += 1
            }
        }
        if number != chain.headNumber + 1 || Hex.encode(parent) != chain.headHash {
            report.problems.append(
                "\(name): the head is block \(chain.headNumber) \(chain.headHash) but the blocks end at \(number) \(Hex.encode(parent))"
            )
        }
        try checkCommitments(chain, accounts, &report, on: connection)
        if chain.stateRoot.root(accounts) != lastStateRoot {
            report.problems.append("\(name): the head's state root does not commit to the stored state")
        }
    }
}
