public import HubKernel
public import Hummingbird
import Logging
public import ServiceLifecycle

/// The EVM rail (`evm`, DESIGN §4.3): a marketplace and paid courses on any EVM chain, the hub's
/// own chain by default: its chains (``EVMConfiguration``), custodial accounts
/// (``CustodialAccounts``), Sign-In with Ethereum (``EthereumSignIn``), the transactions it sends
/// (``TransactionSender``, ``OperationTracker``) and items minted through the hub's contracts
/// (``MarketplaceContracts``, ``ItemsService``).
public struct EVMPlugin: RailPlugin {
    public static let id = "evm"
    public static let eventTypes = EVMEvents.all

    let context: PluginContext
    let chains: EVMChains
    let accounts: CustodialAccounts
    let items: ItemsService
    let listings: ListingsService
    let contracts: MarketplaceContracts

    public init(context: PluginContext, config: PluginConfig) throws {
        self.context = context
        let configuration = try EVMConfiguration(config)
        chains = EVMChains(configuration: configuration, hostedChains: context.hostedChains)
        accounts = CustodialAccounts(context: context, keys: try CustodialKeys(secrets: context.secrets))
        let sender = TransactionSender(context: context, locks: SenderLocks())
        contracts = MarketplaceContracts(context: context, sender: sender, deploying: SenderLocks())
        items = ItemsService(context: context, chains: chains, accounts: accounts, contracts: contracts, sender: sender)
        listings = ListingsService(context: context, chains: chains, accounts: accounts, contracts: contracts, sender: sender)
        let defaultChain = try chains.settings(nil)
        context.identity.wallets.schemes.register(EthereumSignIn(chainID: defaultChain.chainID))
    }

    public static var schema: [Migration] { EVMMigrations.all }

    public func addRoutes(to group: RouterGroup<HubRequestContext>) {
        AccountsController(chains: chains, accounts: accounts, contracts: contracts).addRoutes(to: group)
        ItemsController(items: items).addRoutes(to: group)
        ListingsController(listings: listings, accounts: accounts, chains: chains).addRoutes(to: group)
        ReviewsChatController(
            reviews: ReviewsService(context: context, listings: listings),
            chat: ChatService(context: context, listings: listings)
        ).addRoutes(to: group)
    }

    public var services: [any Service] {
        [ChainPreparation(chains: chains, logger: context.logger), OperationTracker(context: context, chains: chains)]
    }

    public func health() async -> PluginHealth {
        let down = chains.all.filter { chains.status($0.id) != .ready && chains.status($0.id) != .starting }
        guard down.isEmpty else {
            return PluginHealth(.degraded, detail: down.map { "\($0.id): \(chains.status($0.id).detail ?? "unavailable")" }.joined(separator: "; "))
        }
        return .ok
    }
}
