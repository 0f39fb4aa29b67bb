import HubKernel

/// The rail's events (`substrate.*`), appended in the unit of work that makes the change.
/// `subject` is the wallet's address (SS58 with the configured prefix).
enum SubstrateEvents {
    /// The hub made a custodial wallet: data is the wallet without its secret.
    static let walletCreated = "substrate.wallet.created"
    /// A user registered an address they proved they hold.
    static let walletRegistered = "substrate.wallet.registered"

    static let all = [walletCreated, walletRegistered]
}
