import ChainKit

/// A log entry (LOG0…LOG4).
public struct Log: Sendable, Hashable {
    public var address: Address
    public var topics: [U256]
    public var data: [UInt8]

    public init(address: Address, topics: [U256], data: [UInt8]) {
        self.address = address
        self.topics = topics
        self.data = data
    }
}

/// The state as one transaction sees it: a cache over the backing ``EVMState`` plus a journal of every
/// change, so each call frame can be reverted exactly (``snapshot()`` / ``revert(to:)``). It also holds
/// what lives for one transaction only: warm addresses and slots (EIP-2929), transient storage
/// (EIP-1153), the refund counter, logs, and the accounts created or self-destructed.
///
/// Not `Sendable`: one transaction runs on one thread.
final class JournaledState {
    struct CachedAccount {
        var nonce: UInt64 = 0
        var balance: U256 = .zero
        var code: [UInt8] = []
        var codeHash: U256?
        /// False for an address the backing state does not hold (and nothing has created yet).
        var exists = false
        /// Current values of the slots read or written in this transaction.
        var storage: [U256: U256] = [:]
        /// Created afresh in this transaction: slots not in `storage` read as zero.
        var storageCleared = false

        var isEmpty: Bool { nonce == 0 && balance.isZero && code.isEmpty }
        /// EIP-161's dead: absent or empty.
        var isDead: Bool { !exists || isEmpty }
    }

    struct SlotKey: Hashable {
        var address: Address
        var slot: U256
    }

    enum Entry {
        case balance(Address, U256)
        case nonce(Address, UInt64)
        case code(Address, [UInt8], U256?)
        case storage(Address, U256, U256)
        /// The whole account before it was created or replaced.
        case replaced(Address, CachedAccount)
        case touched(Address)
        case warmAccount(Address)
        case warmSlot(SlotKey)
        case transient(SlotKey, U256)
        case refund(Int)
        case selfDestructed(Address)
        case createdInTransaction(Address)
    }

    /// A point to revert to.
    struct Snapshot {
        var entries: Int
        var logs: Int
    }

    let backing: any EVMState
    private(set) var accounts: [Address: CachedAccount] = [:]
    private var journal: [Entry] = []
    private(set) var logs: [Log] = []
    private(set) var refund = 0
    private var warmAccounts: Set<Address> = []
    private var warmSlots: Set<SlotKey> = []
    private var transient: [SlotKey: U256] = [:]
    private var touched: Set<Address> = []
    private(set) var selfDestructed: Set<Address> = []
    private(set) var createdInTransaction: Set<Address> = []
    /// Slot values at the start of the transaction (EIP-2200's "original"), filled on first read.
    private var originals: [SlotKey: U256] = [:]

    init(backing: any EVMState) { self.backing = backing }

    // MARK: Snapshots

    func snapshot() -> Snapshot { Snapshot(entries: journal.count, logs: logs.count) }

    /// Undoes every change made since `snapshot`, newest first.
    func revert(to snapshot: Snapshot) {
        while journal.count > snapshot.entries {
            switch journal.removeLast() {
            case .balance(let address, let value): accounts[address]!.balance = value
            case .nonce(let address, let value): accounts[address]!.nonce = value
            case .code(let address, let code, let hash):
                accounts[address]!.code = code
                accounts[address]!.codeHash = hash
            case .storage(let address, let slot, let value): accounts[address]!.storage[slot] = value
            case .replaced(let address, let previous): accounts[address] = previous
            case .touched(let address): touched.remove(address)
            case .warmAccount(let address): warmAccounts.remove(address)
            case .warmSlot(let key): warmSlots.remove(key)
            case .transient(let key, let value): transient[key] = value
            case .refund(let value): refund = value
            case .selfDestructed(let address): selfDestructed.remove(address)
            case .createdInTransaction(let address): createdInTransaction.remove(address)
            }
        }
        if logs.count > snapshot.logs { logs.removeLast(logs.count - snapshot.logs) }
    }

    // MARK: Accounts

    /// Loads the account into the cache (reading the backing state once).
    @discardableResult
    private func load(_ address: Address) -> CachedAccount {
        if let cached = accounts[address] { return cached }
        var cached = CachedAccount()
        if let account = backing.account(at: address) {
            cached.nonce = account.nonce
            cached.balance = account.balance
            cached.code = account.code
            cached.exists = true
        }
        accounts[address] = cached
        return cached
    }

    func exists(_ address: Address) -> Bool { load(address).exists }
    func isDead(_ address: Address) -> Bool { load(address).isDead }
    func balance(_ address: Address) -> U256 { load(address).balance }
    func nonce(_ address: Address) -> UInt64 { load(address).nonce }
    func code(_ address: Address) -> [UInt8] { load(address).code }

    /// EXTCODEHASH: zero for a dead account, else keccak-256 of the code (cached).
    func codeHash(_ address: Address) -> U256 {
        let account = load(address)
        if account.isDead { return .zero }
        if let hash = account.codeHash { return hash }
        let hash = U256(bigEndian: Keccak256.hash(account.code))
        accounts[address]!.codeHash = hash
        return hash
    }

    /// Marks an account touched (EIP-161: deleted at the end of the transaction if then empty).
    func touch(_ address: Address) {
        load(address)
        if touched.insert(address).inserted { journal.append(.touched(address)) }
    }

    func setBalance(_ address: Address, _ value: U256) {
        let account = load(address)
        journal.append(.balance(address, account.balance))
        if !account.exists { markExisting(address) }
        accounts[address]!.balance = value
        touch(address)
    }

    func addBalance(_ address: Address, _ amount: U256) {
        setBalance(address, balance(address) &+ amount)
    }

    /// Callers check the balance first.
    func subtractBalance(_ address: Address, _ amount: U256) {
        setBalance(address, balance(address) &- amount)
    }

    func setNonce(_ address: Address, _ value: UInt64) {
        let account = load(address)
        journal.append(.nonce(address, account.nonce))
        if !account.exists { markExisting(address) }
        accounts[address]!.nonce = value
        touch(address)
    }

    func setCode(_ address: Address, _ code: [UInt8]) {
        let account = load(address)
        journal.append(.code(address, account.code, account.codeHash))
        accounts[address]!.code = code
        accounts[address]!.codeHash = nil
    }

    private func markExisting(_ address: Address) {
        journal.append(.replaced(address, accounts[address]!))
        accounts[address]!.exists = true
    }

    /// A new contract at `address`: nonce 1, no code, no storage; a balance already there is kept.
    func createContract(_ address: Address) {
        let previous = load(address)
        journal.append(.replaced(address, previous))
        accounts[address] = CachedAccount(nonce: 1, balance: previous.balance, exists: true, storageCleared: true)
        if createdInTransaction.insert(address).inserted { journal.append(.createdInTransaction(address)) }
        touch(address)
    }

    /// SELFDESTRUCT of a contract created in this transaction (EIP-6780): deleted at the end.
    func markSelfDestructed(_ address: Address) {
        if selfDestructed.insert(address).inserted { journal.append(.selfDestructed(address)) }
    }

    // MARK: Storage

    func storage(_ address: Address, _ slot: U256) -> U256 {
        let account = load(address)
        if let value = account.storage[slot] { return value }
        let key = SlotKey(address: address, slot: slot)
        let value: U256
        if account.storageCleared {
            value = .zero
        } else {
            value = backing.storage(at: address, slot: slot)
            if originals[key] == nil { originals[key] = value }
        }
        accounts[address]!.storage[slot] = value
        return value
    }

    /// Whether the account held storage at the start of the transaction (and was not created since):
    /// a CREATE onto it collides (EIP-7610).
    func hasStorage(_ address: Address) -> Bool {
        !load(address).storageCleared && backing.hasStorage(at: address)
    }

    /// The slot's value at the start of the transaction (zero for a contract created in it).
    func originalStorage(_ address: Address, _ slot: U256) -> U256 {
        if createdInTransaction.contains(address) { return .zero }
        let key = SlotKey(address: address, slot: slot)
        if let value = originals[key] { return value }
        let value = backing.storage(at: address, slot: slot)
        originals[key] = value
        return value
    }

    func setStorage(_ address: Address, _ slot: U256, _ value: U256) {
        let previous = storage(address, slot)
        journal.append(.storage(address, slot, previous))
        accounts[address]!.storage[slot] = value
    }

    func transientStorage(_ address: Address, _ slot: U256) -> U256 {
        transient[SlotKey(address: address, slot: slot)] ?? .zero
    }

    func setTransientStorage(_ address: Address, _ slot: U256, _ value: U256) {
        let key = SlotKey(address: address, slot: slot)
        journal.append(.transient(key, transient[key] ?? .zero))
        transient[key] = value
    }

    // MARK: Access lists (EIP-2929)

    /// Warms the address; returns whether it was cold.
    @discardableResult
    func warmAccount(_ address: Address) -> Bool {
        guard warmAccounts.insert(address).inserted else { return false }
        journal.append(.warmAccount(address))
        return true
    }

    func isWarm(_ address: Address) -> Bool { warmAccounts.contains(address) }

    /// Warms the slot; returns whether it was cold.
    @discardableResult
    func warmSlot(_ address: Address, _ slot: U256) -> Bool {
        let key = SlotKey(address: address, slot: slot)
        guard warmSlots.insert(key).inserted else { return false }
        journal.append(.warmSlot(key))
        return true
    }

    // MARK: Refunds and logs

    func addRefund(_ amount: Int) {
        journal.append(.refund(refund))
        refund += amount
    }

    func appendLog(_ log: Log) { logs.append(log) }

    // MARK: End of transaction

    /// Deletes self-destructed accounts and touched empty ones, and returns the changes for the
    /// backing state.
    func finalize() -> StateChanges {
        var changes = StateChanges()
        for (address, account) in accounts {
            if selfDestructed.contains(address) || (touched.contains(address) && account.isDead) {
                if backing.account(at: address) != nil { changes.accounts[address] = .deleted }
                continue
            }
            guard account.exists else { continue }
            changes.accounts[address] = .updated(
                Account(nonce: account.nonce, balance: account.balance, code: account.code),
                storage: account.storage,
                storageCleared: account.storageCleared
            )
        }
        return changes
    }
}
