/// A world state held in dictionaries, for tests, tools and the conformance runner.
public struct InMemoryState: EVMState, Sendable, Hashable {
    public var accounts: [Address: Account]
    /// Non-zero slots only.
    public var storage: [Address: [U256: U256]]

    public init(accounts: [Address: Account] = [:], storage: [Address: [U256: U256]] = [:]) {
        self.accounts = accounts
        self.storage = storage.filter { !$0.value.isEmpty }
    }

    public func account(at address: Address) -> Account? { accounts[address] }

    public func storage(at address: Address, slot: U256) -> U256 { storage[address]?[slot] ?? .zero }

    public func hasStorage(at address: Address) -> Bool { !(storage[address]?.isEmpty ?? true) }

    public mutating func apply(_ changes: StateChanges) {
        for (address, change) in changes.accounts {
            switch change {
            case .deleted:
                accounts[address] = nil
                storage[address] = nil
            case .updated(let account, let slots, let cleared):
                accounts[address] = account
                var current = cleared ? [:] : storage[address] ?? [:]
                for (slot, value) in slots { current[slot] = value.isZero ? nil : value }
                storage[address] = current.isEmpty ? nil : current
            }
        }
    }
}
