import ChainKit
import EVMKit
import HubKernel

/// What a block changed in contract code and storage, to write after it (``ContractStore``).
struct ContractChanges: Sendable, Equatable {
    /// New code by address (empty: the account was deleted, its code goes).
    var code: [EthereumAddress: [UInt8]] = [:]
    /// Slots written by address, zero meaning cleared; applied after `clearedStorage`.
    var storage: [EthereumAddress: [U256: U256]] = [:]
    /// Accounts whose whole storage is gone (self-destructed in the transaction that created them,
    /// or created afresh).
    var clearedStorage: Set<EthereumAddress> = []
}

/// Reads contract code and storage from the chain's tables when the EVM first asks, and
/// remembers it for the rest of the block. A class so that ``ChainWorldState``'s non-mutating
/// reads (the ``EVMState`` protocol's) can fill the cache; it lives for one block on one thread
/// (the database worker's), never shared.
final class ContractReader {
    private let loadCode: (EthereumAddress) throws -> [UInt8]
    private let loadSlot: (EthereumAddress, U256) throws -> U256
    private let loadHasStorage: (EthereumAddress) throws -> Bool
    private let loadAllSlots: (EthereumAddress) throws -> [U256: U256]
    private let loadAccount: (EthereumAddress) throws -> ChainAccount?
    private var accountCache: [EthereumAddress: ChainAccount?] = [:]
    private var codeCache: [EthereumAddress: [UInt8]] = [:]
    private var slotCache: [EthereumAddress: [U256: U256]] = [:]
    /// The first read that failed: the EVM's state interface cannot throw, so the block is
    /// executed on, then refused as a whole by whoever checks this.
    private(set) var failure: (any Error)?

    init(
        code: @escaping (EthereumAddress) throws -> [UInt8],
        slot: @escaping (EthereumAddress, U256) throws -> U256,
        hasStorage: @escaping (EthereumAddress) throws -> Bool,
        allSlots: @escaping (EthereumAddress) throws -> [U256: U256],
        account: @escaping (EthereumAddress) throws -> ChainAccount? = { _ in nil }
    ) {
        loadCode = code
        loadSlot = slot
        loadHasStorage = hasStorage
        loadAllSlots = allSlots
        loadAccount = account
    }

    /// The chain `chainID`'s tables, read on `connection`. With `accounts`, accounts the state
    /// was not given are read when first asked for (a call that touches a few accounts of many).
    convenience init(chainID: UInt64, connection: any SQLConnection, accounts: Bool = false) {
        self.init(
            code: { try ContractStore.code(chainID: chainID, address: $0, on: connection) },
            slot: { try ContractStore.slot(chainID: chainID, address: $0, slot: $1, on: connection) },
            hasStorage: { try ContractStore.hasStorage(chainID: chainID, address: $0, on: connection) },
            allSlots: { try ContractStore.slots(chainID: chainID, address: $0, on: connection) },
            account: { accounts ? try LocalChainStore.account(chainID: chainID, address: $0, on: connection) : nil }
        )
    }

    /// The stored account at `address`, when this reader reads accounts.
    func account(_ address: EthereumAddress) -> ChainAccount? {
        if let cached = accountCache[address] { return cached }
        let account = attempt { try loadAccount(address) } ?? nil
        accountCache[address] = account
        return account
    }

    /// Reads the stored accounts among `addresses` at once (a block's senders and recipients), so
    /// that the block's first use of each, or of one that does not exist yet, costs no query.
    func preloadAccounts(_ addresses: Set<EthereumAddress>, chainID: UInt64, on connection: any SQLConnection) throws {
        let list = Array(addresses)
        let found = Dictionary(try LocalChainStore.accounts(chainID: chainID, among: list, on: connection).map { ($0.address, $0) }) { first, _ in
            first
        }
        for address in list { accountCache[address] = .some(found[address]) }
    }

    /// A state with no contracts at all (tests, and chains read before any contract existed).
    static var none: ContractReader {
        ContractReader(code: { _ in [] }, slot: { _, _ in .zero }, hasStorage: { _ in false }, allSlots: { _ in [:] })
    }

    func code(_ address: EthereumAddress) -> [UInt8] {
        if let cached = codeCache[address] { return cached }
        let code = attempt { try loadCode(address) } ?? []
        codeCache[address] = code
        return code
    }

    func slot(_ address: EthereumAddress, _ slot: U256) -> U256 {
        if let cached = slotCache[address]?[slot] { return cached }
        let value = attempt { try loadSlot(address, slot) } ?? .zero
        slotCache[address, default: [:]][slot] = value
        return value
    }

    func hasStorage(_ address: EthereumAddress) -> Bool { attempt { try loadHasStorage(address) } ?? false }

    /// Every stored non-zero slot of `address` (not cached: read once per changed contract per block).
    func allSlots(_ address: EthereumAddress) -> [U256: U256] { attempt { try loadAllSlots(address) } ?? [:] }

    /// Throws the first failed read, if any.
    func check() throws { if let failure { throw failure } }

    private func attempt<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch {
            if failure == nil { failure = error }
            return nil
        }
    }
}

/// A chain's state while a block executes: nonces and balances of the accounts the block uses
/// (with the ledger accounts that mirror them), code and storage read through a
/// ``ContractReader`` and changed in memory, so the block's writes happen once, after it.
/// Conforms to EVMKit's ``EVMState``; balances are `UInt128` here, as the ledger's amounts are.
///
/// It is given every account, or (with a reader that reads accounts) starts from none and reads
/// each stored account the first time the block uses it (``load(_:)``), so a block costs in
/// proportion to what it touches, not to the number of accounts on the chain.
struct ChainWorldState: EVMState {
    var accounts: [EthereumAddress: ChainAccount]
    /// The stored accounts read during the block, as they were before it changed them.
    private(set) var loaded: [EthereumAddress: ChainAccount] = [:]
    let reader: ContractReader
    /// The ledger account that will mirror an address new to the chain.
    let ledgerAccount: (EthereumAddress) -> AccountID
    /// Every write since the block began.
    private(set) var changes = ContractChanges()
    /// Addresses that had no account before this block, in first-touched order.
    private(set) var created: [EthereumAddress] = []

    init(accounts: [EthereumAddress: ChainAccount], reader: ContractReader, ledgerAccount: @escaping (EthereumAddress) -> AccountID) {
        self.accounts = accounts
        self.reader = reader
        self.ledgerAccount = ledgerAccount
    }

    /// Brings the stored account at `address` into ``accounts`` unless it is there already (a
    /// no-op when the reader does not read accounts: the state was given all of them).
    mutating func load(_ address: EthereumAddress) {
        guard accounts[address] == nil, let stored = reader.account(address) else { return }
        accounts[address] = stored
        loaded[address] = stored
    }

    /// The account at `address` before the block: given, or read during it.
    func original(_ address: EthereumAddress, given: [EthereumAddress: ChainAccount]) -> ChainAccount? {
        given[address] ?? loaded[address]
    }

    /// Adds an empty account for `address` unless it has one (stored or already in ``accounts``).
    mutating func ensureAccount(_ address: EthereumAddress) {
        load(address)
        guard accounts[address] == nil else { return }
        accounts[address] = ChainAccount(address: address, nonce: 0, balance: 0, ledgerAccountID: ledgerAccount(address))
        created.append(address)
    }

    func code(_ address: EthereumAddress) -> [UInt8] {
        if let code = changes.code[address] { return code }
        guard row(address) != nil else { return [] }
        return reader.code(address)
    }

    /// The account's row: changed in this block, or as stored.
    private func row(_ address: EthereumAddress) -> ChainAccount? { accounts[address] ?? reader.account(address) }

    func storage(_ address: EthereumAddress, _ slot: U256) -> U256 {
        if let value = changes.storage[address]?[slot] { return value }
        if changes.clearedStorage.contains(address) { return .zero }
        return reader.slot(address, slot)
    }

    // MARK: EVMState

    func account(at address: Address) -> EVMKit.Account? {
        let address = EthereumAddress(address)
        guard let account = row(address) else { return nil }
        let code = code(address)
        if account.nonce == 0 && account.balance == 0 && code.isEmpty { return nil }
        return EVMKit.Account(nonce: account.nonce, balance: U256(account.balance), code: code)
    }

    func storage(at address: Address, slot: U256) -> U256 { storage(EthereumAddress(address), slot) }

    func hasStorage(at address: Address) -> Bool {
        let address = EthereumAddress(address)
        if changes.storage[address]?.values.contains(where: { !$0.isZero }) ?? false { return true }
        if changes.clearedStorage.contains(address) { return false }
        return reader.hasStorage(address)
    }

    /// Brings the storage roots and code hashes of the accounts this block changed up to date:
    /// only a contract whose storage changed has its storage read in full (its stored slots with
    /// the block's writes over them), so a block costs in proportion to what it touched, not to
    /// the chain's whole storage.
    mutating func updateCommitments() {
        for address in Set(changes.storage.keys).union(changes.clearedStorage) where accounts[address] != nil {
            var slots = changes.clearedStorage.contains(address) ? [:] : reader.allSlots(address)
            for (slot, value) in changes.storage[address] ?? [:] { slots[slot] = value }
            let root = EthereumStateRoot.storageRoot(slots.map { (slot: $0.key.bigEndianBytes, value: $0.value.bigEndianBytes) })
            accounts[address]!.storageRoot = root == EthereumStateRoot.emptyStorageRoot ? nil : root
        }
        for (address, code) in changes.code where accounts[address] != nil {
            accounts[address]!.codeHash = code.isEmpty ? nil : Keccak256.hash(code)
        }
    }

    /// Applies one transaction's changes. An account that does not exist yet is added with
    /// `ledgerAccount(address)` as its mirror; a deleted one keeps its row (and ledger account) with
    /// nothing in it, which the roots treat as absent, as Ethereum does.
    /// Balances above 2^128-1 cannot arise (they are sums of a `UInt128` supply) and are clamped.
    mutating func apply(_ stateChanges: StateChanges) {
        for (address, change) in stateChanges.accounts {
            let address = EthereumAddress(address)
            switch change {
            case .deleted:
                load(address)
                guard accounts[address] != nil else { continue }
                accounts[address]!.nonce = 0
                accounts[address]!.balance = 0
                if !code(address).isEmpty { changes.code[address] = [] }
                changes.clearedStorage.insert(address)
                changes.storage[address] = nil
            case .updated(let account, let slots, let cleared):
                ensureAccount(address)
                accounts[address]!.nonce = account.nonce
                accounts[address]!.balance = account.balance.uint128Clamped
                if account.code != code(address) { changes.code[address] = account.code }
                if cleared {
                    changes.clearedStorage.insert(address)
                    changes.storage[address] = [:]
                }
                for (slot, value) in slots { changes.storage[address, default: [:]][slot] = value }
            }
        }
    }
}

extension EthereumAddress {
    init(_ address: Address) { try! self.init(bytes: address.bytes) }
}

extension U256 {
    init(_ value: UInt128) { self.init(w0: UInt64(truncatingIfNeeded: value), w1: UInt64(truncatingIfNeeded: value >> 64), w2: 0, w3: 0) }

    var uint128Clamped: UInt128 { (w2 | w3) == 0 ? UInt128(w1) << 64 | UInt128(w0) : .max }
}
