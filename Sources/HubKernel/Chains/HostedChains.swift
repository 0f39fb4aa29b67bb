import Synchronization

/// The EVM chains this hub runs itself, reachable in process through their JSON-RPC: the
/// extension point by which one rail uses another's chain without importing it (DESIGN §2). The
/// local chain rail registers itself as the ``HostedChainProvider``; the EVM rail, finding no
/// external chain configured, runs on a chain of this hub through it.
///
/// ```swift
/// guard let provider = context.hostedChains.provider else { … }   // no rail runs chains here
/// try await provider.ensureChain(HostedChainSpec(chainID: 1_337, name: "Marketplace", currencyName: "Market Coin", symbol: "MKT", decimals: 18, requestedBy: "rail:evm"))
/// let answer = try await provider.rpc(chainID: 1_337, request: Array(#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}"#.utf8))
/// ```
public final class HostedChainRegistry: Sendable {
    private let registered = Mutex<(any HostedChainProvider)?>(nil)

    public init() {}

    /// Makes `provider` the hub's chain provider. A second provider is a programming error (two
    /// rails claiming to run the hub's chains) and stops the process.
    public func register(_ provider: any HostedChainProvider) {
        registered.withLock { current in
            precondition(current == nil, "a hosted chain provider is already registered")
            current = provider
        }
    }

    /// The provider, if a rail that runs chains is enabled.
    public var provider: (any HostedChainProvider)? { registered.withLock { $0 } }
}

/// A rail that runs EVM chains on this hub and lets other rails use them.
public protocol HostedChainProvider: Sendable {
    /// Creates the chain if it does not exist yet; a chain that exists and was made for the same
    /// requester is left as it is. Returns whether it was created.
    /// - Throws: a conflict when the id is taken by a chain made for someone else.
    @discardableResult
    func ensureChain(_ spec: HostedChainSpec) async throws -> Bool

    /// Answers a JSON-RPC 2.0 request (one call or a batch, as JSON bytes) as the chain's public
    /// endpoint would; `nil` for notifications only. Errors are JSON-RPC errors in the answer.
    /// - Throws: only when the chain does not exist.
    func rpc(chainID: UInt64, request: [UInt8]) async throws -> [UInt8]?
}

/// A chain another rail asks the hub to run.
public struct HostedChainSpec: Sendable, Hashable {
    public var chainID: UInt64
    /// Shown in the console and the explorer.
    public var name: String
    /// The chain's native currency, mirrored in the ledger as an asset.
    public var currencyName: String
    /// The currency's ticker (`MKT`).
    public var symbol: String
    public var decimals: UInt8
    /// Who the chain is created for (`rail:evm`), for the log and the chain's record.
    public var requestedBy: String

    public init(chainID: UInt64, name: String, currencyName: String, symbol: String, decimals: UInt8, requestedBy: String) {
        self.chainID = chainID
        self.name = name
        self.currencyName = currencyName
        self.symbol = symbol
        self.decimals = decimals
        self.requestedBy = requestedBy
    }
}
