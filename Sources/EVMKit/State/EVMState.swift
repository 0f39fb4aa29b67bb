/// An account as a state stores it: code is kept with the account, its hash computed when asked.
public struct Account: Sendable, Hashable {
    public var nonce: UInt64
    public var balance: U256
    public var code: [UInt8]

    public init(nonce: UInt64 = 0, balance: U256 = .zero, code: [UInt8] = []) {
        self.nonce = nonce
        self.balance = balance
        self.code = code
    }

    /// EIP-161's empty: no nonce, no balance, no code. Touched empty accounts are deleted.
    public var isEmpty: Bool { nonce == 0 && balance.isZero && code.isEmpty }
}

/// The world state the EVM runs over: accounts, their code and storage. A chain backs it with its
/// own storage; ``InMemoryState`` serves tests and tools.
///
/// The engine only reads through this protocol while a transaction runs (its journal keeps every
/// change) and hands back one ``StateChanges`` to apply when the transaction is done, so a backing
/// store never sees a change that a revert would undo. Transient storage (EIP-1153) is not here:
/// it lives for one transaction only, so the journal holds it.
public protocol EVMState {
    /// The account at `address`, or `nil` if none exists.
    func account(at address: Address) -> Account?
    /// The value of a storage slot (zero when never written).
    func storage(at address: Address, slot: U256) -> U256
    /// Whether the account has any non-zero storage slot (EIP-7610: creating a contract there collides).
    func hasStorage(at address: Address) -> Bool
    /// Applies the changes of one transaction (or system call).
    mutating func apply(_ changes: StateChanges)
}

/// What one transaction changed.
public struct StateChanges: Sendable {
    public enum Change: Sendable {
        /// The account no longer exists (self-destructed, or touched while empty).
        case deleted
        /// The account's new nonce, balance and code; `storage` holds every slot written (zero means
        /// cleared); `storageCleared` says the account was created afresh, so older slots are gone.
        case updated(Account, storage: [U256: U256], storageCleared: Bool)
    }

    public var accounts: [Address: Change]

    public init(accounts: [Address: Change] = [:]) { self.accounts = accounts }
}
