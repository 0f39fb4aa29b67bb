import ChainKit
import Foundation
import HubKernel

/// Money the rail's contracts hold on an external chain, mirrored in the kernel ledger so an
/// organiser sees what is at stake where they see everything else.
///
/// Each external chain has an asset of the rail (`EVM-<chain id>`, the chain's decimals) with:
/// - an *outside* account, the counterpart of money entering or leaving the contracts (it runs
///   negative: it is the chain beyond the hub's view);
/// - an account per address and contract, for what the address holds in or is owed by that
///   contract (the hub user's own when the address is their custodial account), and one per
///   contract.
///
/// Money a user locks in a contract enters as `outside → user` and is held `user → contract`
/// until the contract settles (the hold is posted, the contract's payouts credited to their
/// payees) or gives it back (voided, and `user → outside`). A withdrawal from a contract is
/// `payee → outside`. Every entry is written by the tracker in the unit of work that confirms
/// the operation, after the chain's confirmations, so a reorganisation before that leaves no
/// trace; ids derive from the transaction, so a retried unit changes nothing twice.
///
/// On a chain of this hub the local chain's own mirror already moves the money of every
/// contract in the ledger, block by block: mirroring it here too would count it twice, so the
/// hub's chains are left out.
struct ContractLedger {
    static let assetPrefix = "EVM-"

    static func assetCode(_ chain: EVMChainSettings) -> AssetCode { AssetCode(assetPrefix + String(chain.chainID))! }

    static func mirrors(_ chain: EVMChainSettings) -> Bool { chain.endpoint != .hosted }

    /// Creates the chain's asset (again: an existing one with the same fields is kept).
    static func ensureAsset(_ chain: EVMChainSettings, ledger: RailLedger) async throws {
        guard mirrors(chain) else { return }
        let asset = NewAsset(
            code: assetCode(chain),
            scale: chain.decimals,
            name: "\(chain.symbol) in the EVM rail's contracts on \(chain.id)",
            rail: EVMPlugin.id
        )
        if case .failed(let error) = try await ledger.createAsset(asset) {
            throw EVMError(kind: .unavailable, errorCode: "ledger_asset", message: "The ledger asset of chain '\(chain.id)': \(error.message)")
        }
    }

    let unit: UnitOfWork
    let chain: EVMChainSettings
    /// The confirmed transaction: names every entry (`ref.id`) and derives their ids.
    let txHash: String
    let kind: String
    private var leg = 0

    init(unit: UnitOfWork, chain: EVMChainSettings, txHash: String, kind: String) {
        self.unit = unit
        self.chain = chain
        self.txHash = txHash
        self.kind = kind
    }

    var asset: AssetCode { Self.assetCode(chain) }

    // MARK: - Accounts

    static func accountID(_ name: String) -> AccountID {
        var bytes = Array(Keccak256.hash(Array("hubd-evm-ledger:\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return AccountID(rawValue: bytes.reduce(UInt128(0)) { ($0 << 8) | UInt128($1) })
    }

    func outside() throws -> AccountID {
        let id = Self.accountID("\(chain.chainID):outside")
        try ensure(id, owner: .system("evm:\(chain.id)"), code: "evm-outside", flags: [], metadata: ["chain": chain.id])
        return id
    }

    /// The account of `address` at `contract` (what it holds in or is owed by that contract): its
    /// hub user's when the address is their custodial account. One per contract, so each
    /// contract's credits can be compared with what that contract says it owes.
    func account(of address: EthereumAddress, at contract: EthereumAddress) throws -> AccountID {
        let id = Self.accountID("\(chain.chainID):\(contract.checksummed):\(address.checksummed)")
        let user = try unit.connection.queryFirst(
            "SELECT user_id FROM evm_accounts WHERE chain = \(chain.id) AND address = \(address.checksummed)"
        )?.text("user_id")
        try ensure(
            id,
            owner: user.map(AccountOwner.user) ?? .system("evm:\(chain.id):\(address.checksummed)"),
            code: "evm-wallet",
            flags: [.debitsMustNotExceedCredits],
            metadata: ["chain": chain.id, "address": address.checksummed, "contract": contract.checksummed]
        )
        return id
    }

    func contract(_ address: EthereumAddress) throws -> AccountID {
        let id = Self.accountID("\(chain.chainID):contract:\(address.checksummed)")
        try ensure(
            id,
            owner: .system("evm:\(chain.id):\(address.checksummed)"),
            code: "evm-contract",
            flags: [.debitsMustNotExceedCredits],
            metadata: ["chain": chain.id, "contract": address.checksummed]
        )
        return id
    }

    private func ensure(_ id: AccountID, owner: AccountOwner, code: String, flags: AccountFlags, metadata: [String: String]) throws {
        let new = NewAccount(id: id, asset: asset, owner: owner, code: code, flags: flags, metadata: metadata, rail: EVMPlugin.id)
        if case .failed(let error) = try unit.createAccounts([new]).first {
            throw EVMError(kind: .unavailable, errorCode: "ledger_account", message: "The ledger account \(id): \(error.message)")
        }
    }

    // MARK: - Entries

    /// A hold's id, named by what it holds (e.g. a seat), so the entry that resolves it finds it.
    static func holdID(_ name: String) -> TransferID {
        TransferID(rawValue: accountID("hold:\(name)").rawValue)
    }

    private mutating func nextID() -> TransferID {
        leg += 1
        return TransferID(rawValue: Self.accountID("transfer:\(txHash):\(leg)").rawValue)
    }

    private var reference: TransferReference { TransferReference(rail: EVMPlugin.id, type: kind, id: txHash) }

    /// Money entering the contracts from `payer`'s wallet, held for `contract` under `hold`.
    mutating func lock(_ amount: UInt256, from payer: EthereumAddress, in contract: EthereumAddress, hold: String) throws {
        guard let amount = Self.ledgerAmount(amount), amount > 0 else { return }
        let user = try account(of: payer, at: contract)
        try submit([
            TransferRequest(
                id: nextID(),
                action: .post(debit: try outside(), credit: user, amount: amount, asset: asset),
                linked: true,
                reference: reference
            ),
            TransferRequest(
                id: Self.holdID(hold),
                action: .hold(debit: user, credit: try self.contract(contract), amount: amount, asset: asset, timeoutSeconds: 0),
                reference: reference
            ),
        ])
    }

    /// The contract keeps held money: the hold is posted.
    mutating func capture(hold: String) throws {
        guard try unit.pendingStatus(Self.holdID(hold))?.state == .pending else { return }
        try submit([TransferRequest(id: nextID(), action: .postPending(pendingID: Self.holdID(hold), amount: nil), reference: reference)])
    }

    /// The contract gives held money back to its payer's wallet.
    mutating func release(hold: String, to payer: EthereumAddress, at contract: EthereumAddress) throws {
        guard try unit.pendingStatus(Self.holdID(hold))?.state == .pending, let amount = try unit.transfer(Self.holdID(hold))?.amount else { return }
        try submit([
            TransferRequest(id: nextID(), action: .voidPending(pendingID: Self.holdID(hold)), linked: true, reference: reference),
            TransferRequest(
                id: nextID(),
                action: .post(debit: try account(of: payer, at: contract), credit: try outside(), amount: amount, asset: asset),
                reference: reference
            ),
        ])
    }

    /// Money a contract received outside the hub (a payment the hub did not send): it enters the
    /// contract's account from outside, so the contract's payouts balance.
    mutating func enterContract(_ amount: UInt128, _ contract: EthereumAddress) throws {
        guard amount > 0 else { return }
        try submit([
            TransferRequest(
                id: nextID(),
                action: .post(debit: try outside(), credit: try self.contract(contract), amount: amount, asset: asset),
                reference: reference
            )
        ])
    }

    /// A contract credits `payee` (proceeds, earnings, a fee), to be withdrawn.
    mutating func pay(_ amount: UInt256, from contract: EthereumAddress, to payee: EthereumAddress) throws {
        guard let amount = Self.ledgerAmount(amount), amount > 0 else { return }
        try submit([
            TransferRequest(
                id: nextID(),
                action: .post(debit: try self.contract(contract), credit: try account(of: payee, at: contract), amount: amount, asset: asset),
                reference: reference
            )
        ])
    }

    /// `payee` takes what a contract owed them to their wallet: at most what the ledger shows
    /// them owed (credits from before the mirror are not in it).
    mutating func withdraw(_ amount: UInt256, by payee: EthereumAddress, from contract: EthereumAddress) throws {
        guard let amount = Self.ledgerAmount(amount), amount > 0 else { return }
        let id = try account(of: payee, at: contract)
        let taken = min(amount, try owed(id))
        try submit([TransferRequest(id: nextID(), action: .post(debit: id, credit: try outside(), amount: taken, asset: asset), reference: reference)]
        )
    }

    /// What an address's account at a contract shows owed to it: credits less everything
    /// debited or held.
    func owed(_ id: AccountID) throws -> UInt128 {
        guard let balance = try unit.accounts([id]).first else { return 0 }
        let spent = balance.debitsPosted + balance.debitsPending
        return balance.creditsPosted > spent ? balance.creditsPosted - spent : 0
    }

    /// Money `payer` sent that the contract kept at once (a direct sale's price, a bid outbid in
    /// the same block): it enters from their wallet and is posted to the contract.
    mutating func pay(_ amount: UInt256, from payer: EthereumAddress, into contract: EthereumAddress) throws {
        guard let amount = Self.ledgerAmount(amount), amount > 0 else { return }
        let user = try account(of: payer, at: contract)
        try submit([
            TransferRequest(
                id: nextID(),
                action: .post(debit: try outside(), credit: user, amount: amount, asset: asset),
                linked: true,
                reference: reference
            ),
            TransferRequest(
                id: nextID(),
                action: .post(debit: user, credit: try self.contract(contract), amount: amount, asset: asset),
                reference: reference
            ),
        ])
    }

    /// Brings what the ledger shows `address` owed at `contract` to what the contract says
    /// (`owed`): a credit from the contract's account (money entering it from outside first if it
    /// holds too little, e.g. paid outside the hub), or a debit to the outside when it paid out
    /// beyond the hub's view.
    mutating func settleOwed(_ address: EthereumAddress, at contract: EthereumAddress, to target: UInt256) throws {
        guard let target = Self.ledgerAmount(target) else { return }
        let id = try account(of: address, at: contract)
        let shown = try owed(id)
        if target > shown {
            let missing = target - shown
            let contractID = try self.contract(contract)
            let balance = try unit.accounts([contractID]).first
            let has = balance.map { $0.creditsPosted > $0.debitsPosted ? $0.creditsPosted - $0.debitsPosted : 0 } ?? 0
            if has < missing { try enterContract(missing - has, contract) }
            try submit([
                TransferRequest(id: nextID(), action: .post(debit: contractID, credit: id, amount: missing, asset: asset), reference: reference)
            ])
        } else if shown > target {
            try submit([
                TransferRequest(
                    id: nextID(),
                    action: .post(debit: id, credit: try outside(), amount: shown - target, asset: asset),
                    reference: reference
                )
            ])
        }
    }

    /// The sum of the holds still pending among `holds`.
    func held(_ holds: [String]) throws -> UInt128 {
        var total: UInt128 = 0
        for hold in holds where try unit.pendingStatus(Self.holdID(hold))?.state == .pending {
            total += try unit.transfer(Self.holdID(hold))?.amount ?? 0
        }
        return total
    }

    private func submit(_ requests: [TransferRequest]) throws {
        for result in try unit.submit(requests) {
            if case .failed(let error) = result {
                throw EVMError(kind: .unavailable, errorCode: "ledger_mirror", message: "Mirroring \(txHash) in the ledger: \(error.message)")
            }
        }
    }

    /// A chain amount in the ledger's 128 bits: every real balance fits (2^128 wei is 3·10^20
    /// ether); a larger one is not mirrored.
    static func ledgerAmount(_ amount: UInt256) -> UInt128? {
        amount.high == 0 ? amount.low : nil
    }
}
