public import HubKernel
public import Hummingbird
import Logging
public import ServiceLifecycle

/// The EVM rail (`evm`, DESIGN §4.3): a marketplace and paid courses on any EVM chain, the hub's
/// own chain by default: its chains (``EVMConfiguration``), custodial accounts
/// (``CustodialAccounts``), Sign-In with Ethereum (``EthereumSignIn``), the transactions it sends
/// (``TransactionSender``, ``OperationTracker``) and items minted through the hub's contracts
/// (``MarketplaceContracts``, ``ItemsService``) with their images (``ImageStore``), listings
/// (``ListingsService``) and paid courses (``LecturesService``).
public struct EVMPlugin: RailPlugin {
    public static let id = "evm"
    public static let eventTypes = EVMEvents.all

    let context: PluginContext
    let chains: EVMChains
    let accounts: CustodialAccounts
    let items: ItemsService
    let listings: ListingsService
    let lectures: LecturesService
    let contracts: MarketplaceContracts
    let sender: TransactionSender
    let images: ImageStore

    public init(context: PluginContext, config: PluginConfig) throws {
        self.context = context
        let configuration = try EVMConfiguration(config)
        chains = EVMChains(configuration: configuration, hostedChains: context.hostedChains)
        accounts = CustodialAccounts(context: context, keys: try CustodialKeys(secrets: context.secrets))
        let sender = TransactionSender(context: context, locks: SenderLocks())
        self.sender = sender
        contracts = MarketplaceContracts(context: context, sender: sender, deploying: SenderLocks())
        images = ImageStore(context: context)
        items = ItemsService(context: context, chains: chains, accounts: accounts, contracts: contracts, sender: sender, images: images)
        listings = ListingsService(context: context, chains: chains, accounts: accounts, contracts: contracts, sender: sender)
        lectures = LecturesService(context: context, chains: chains, accounts: accounts, contracts: contracts, sender: sender)
        // Each external chain's asset (`EVM-<chain id>`) is the rail's alone: nobody else may
        // create, and pre-mint, the asset of a chain before the rail does.
        context.ledger.reserveAssetCodes(prefix: ContractLedger.assetPrefix, rail: Self.id)
        let defaultChain = try chains.settings(nil)
        context.identity.wallets.schemes.register(EthereumSignIn(chainID: defaultChain.chainID))
    }

    public static var schema: [Migration] { EVMMigrations.all }

    public func addRoutes(to group: RouterGroup<HubRequestContext>) {
        AccountsController(chains: chains, accounts: accounts, contracts: contracts).addRoutes(to: group)
        ItemsController(items: items).addRoutes(to: group)
        ImagesController(images: images).addRoutes(to: group)
        ListingsController(listings: listings, accounts: accounts, chains: chains).addRoutes(to: group)
        ReviewsChatController(
            reviews: ReviewsService(context: context, listings: listings),
            chat: ChatService(context: context, listings: listings, images: images)
        ).addRoutes(to: group)
        LecturesController(lectures: lectures).addRoutes(to: group)
        TransactionsController(sender: sender, chains: chains).addRoutes(to: group)
    }

    public var services: [any Service] {
        [
            ChainPreparation(chains: chains, ledger: context.ledger, logger: context.logger),
            OperationTracker(
                context: context,
                chains: chains,
                replacer: TransactionReplacer(context: context, accounts: accounts, contracts: contracts)
            ),
        ]
    }

    public var adminPanel: AdminPanel? {
        AdminPanel(
            title: "EVM marketplace and courses",
            summary:
                "Items minted through the hub's contracts, their listings (escrow, auction, direct sale), paid lectures and the transactions the rail sent, on each configured chain.",
            links: [AdminPanel.Link(title: "Chains (JSON)", path: "/chains")],
            lists: [
                AdminPanel.List(
                    id: "chains",
                    title: "Chains",
                    path: "/chains",
                    columns: [
                        .init("id", title: "Chain"), .init("chain_id", title: "Chain id"), .init("endpoint", title: "Endpoint"),
                        .init("confirmations", title: "Confirmations"), .init("status", title: "Status", kind: .status),
                        .init("platform_address", title: "Platform account"),
                    ]
                ),
                AdminPanel.List(
                    id: "items",
                    title: "Items",
                    path: "/items",
                    columns: [
                        .init("token_id", title: "Token", kind: .link), .init("chain", title: "Chain"), .init("title", title: "Title"),
                        .init("category", title: "Category"), .init("owner", title: "Owner"), .init("created_at", title: "Minted", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/items/{chain}/{token_id}",
                        fields: [
                            .init("item.title", title: "Title"), .init("item.description", title: "Description"),
                            .init("item.artist", title: "Artist"), .init("item.owner", title: "Owner"), .init("item.uri", title: "Metadata URI"),
                            .init("item.images", title: "Images", kind: .images, link: "/images/{value}"),
                        ]
                    )
                ),
                AdminPanel.List(
                    id: "listings",
                    title: "Listings",
                    path: "/listings",
                    columns: [
                        .init("listing_id", title: "Listing", kind: .link), .init("chain", title: "Chain"), .init("kind", title: "Kind"),
                        .init("state", title: "State", kind: .status), .init("token_id", title: "Token"), .init("price", title: "Price"),
                        .init("highest_bid", title: "Highest bid"), .init("updated_at", title: "Changed", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/listings/{chain}/{listing_id}",
                        fields: [
                            .init("seller", title: "Seller"), .init("buyer", title: "Buyer"), .init("deadline", title: "Deadline (Unix s)"),
                        ]
                    )
                ),
                AdminPanel.List(
                    id: "lectures",
                    title: "Lectures",
                    path: "/lectures",
                    columns: [
                        .init("lecture_id", title: "Lecture", kind: .link), .init("chain", title: "Chain"), .init("title", title: "Title"),
                        .init("kind", title: "Kind"), .init("run_count", title: "Runs"), .init("teacher", title: "Teacher"),
                        .init("updated_at", title: "Changed", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/lectures/{chain}/{lecture_id}",
                        fields: [
                            .init("lecture.period", title: "Period"), .init("lecture.place", title: "Place"),
                            .init("seats_left", title: "Seats left (current run)"), .init("average", title: "Average (current run)"),
                            .init("average_point", title: "Average (all runs)"),
                        ]
                    )
                ),
                AdminPanel.List(
                    id: "operations",
                    title: "Operations",
                    path: "/operations",
                    columns: [
                        .init("id", title: "Operation", kind: .link), .init("chain", title: "Chain"), .init("kind", title: "Kind"),
                        .init("state", title: "State", kind: .status), .init("tx_hash", title: "Transaction"),
                        .init("created_at", title: "Sent", kind: .time),
                    ],
                    detail: AdminPanel.Detail(
                        path: "/operations/{id}",
                        fields: [
                            .init("from", title: "From"), .init("nonce", title: "Nonce"), .init("subject", title: "Contract"),
                            .init("block_number", title: "Block"), .init("error", title: "Error"),
                        ]
                    )
                ),
            ]
        )
    }

    public func health() async -> PluginHealth {
        let down = chains.all.filter { chains.status($0.id) != .ready && chains.status($0.id) != .starting }
        guard down.isEmpty else {
            return PluginHealth(.degraded, detail: down.map { "\($0.id): \(chains.status($0.id).detail ?? "unavailable")" }.joined(separator: "; "))
        }
        return .ok
    }
}
