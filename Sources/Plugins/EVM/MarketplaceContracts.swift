import ChainKit
import Foundation
import HubKernel

/// The rail's contracts on each chain, deployed by the hub on first use: the item token
/// (`ItemToken`), the marketplace over it (`Marketplace`) and paid courses (`Lectures`), each from the chain's platform
/// account, whose key is a vault secret of the rail. Addresses are recorded in `evm_contracts`
/// when the deployment is confirmed; a use that finds none waits for the one under way (or
/// starts it), so concurrent first uses deploy once.
struct MarketplaceContracts: Sendable {
    let context: PluginContext
    let sender: TransactionSender
    let deploying: SenderLocks

    /// The item token's royalty and the platform's fee, in basis points.
    static let royaltyBps = 500
    static let platformFeeBps = 250

    /// The chain's platform account: deploys the contracts and receives the platform's fees.
    func platformKey(_ chain: EVMChainSettings) async throws -> (key: [UInt8], address: EthereumAddress) {
        let key = try await context.secrets.secret("platform-key/\(chain.id)") { CustodialKeys.newKey().privateKey }
        return (key, try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: key)))
    }

    /// The address of the item token on `chain`, deploying it first if needed.
    func itemToken(on chain: EVMChainSettings, client: ChainClient) async throws -> EthereumAddress {
        try await deployed("ItemToken", on: chain, client: client) {
            let constructor = try ABI.encode(
                [.string, .string, .uint(bits: 256)],
                [.string("Hub Items"), .string("ITEM"), .uint(UInt256(Self.royaltyBps))]
            )
            return Self.initcode(CompiledContracts.itemTokenInitcode) + constructor
        }
    }

    /// The marketplace over the item token on `chain`, deploying both first if needed.
    func marketplace(on chain: EVMChainSettings, client: ChainClient) async throws -> EthereumAddress {
        let token = try await itemToken(on: chain, client: client)
        let platform = try await platformKey(chain).address
        return try await deployed("Marketplace", on: chain, client: client) {
            let constructor = try ABI.encode(
                [.address, .address, .uint(bits: 256)],
                [.address(token), .address(platform), .uint(UInt256(Self.platformFeeBps))]
            )
            return Self.initcode(CompiledContracts.marketplaceInitcode) + constructor
        }
    }

    /// The paid-courses contract on `chain`, deploying it first if needed: the platform account
    /// settles its runs and takes the platform's fee.
    func lectures(on chain: EVMChainSettings, client: ChainClient) async throws -> EthereumAddress {
        let platform = try await platformKey(chain).address
        return try await deployed("Lectures", on: chain, client: client) {
            Self.initcode(CompiledContracts.lecturesInitcode) + (try ABI.encode([.address], [.address(platform)]))
        }
    }

    static func initcode(_ hex: String) -> [UInt8] {
        (try? Hex.decode(hex)) ?? []
    }

    private func deployed(
        _ name: String,
        on chain: EVMChainSettings,
        client: ChainClient,
        code: @Sendable () throws -> [UInt8]
    ) async throws -> EthereumAddress {
        if let address = try await recorded(name, chain: chain.id) { return address }
        try await deploying.withLock("\(chain.id):\(name)") {
            guard try await recorded(name, chain: chain.id) == nil, try await pendingDeployment(name, chain: chain.id) == nil else { return }
            let platform = try await platformKey(chain)
            _ = try await sender.send(
                TransactionSender.Request(
                    chain: chain,
                    client: client,
                    userID: nil,
                    kind: "deploy",
                    subject: name,
                    details: ["name": name],
                    to: nil,
                    data: try code()
                ),
                privateKey: platform.key,
                from: platform.address
            )
        }
        // The tracker records the address once the deployment is final.
        for _ in 0..<600 {
            if let address = try await recorded(name, chain: chain.id) { return address }
            if try await pendingDeployment(name, chain: chain.id) == nil, try await recorded(name, chain: chain.id) == nil {
                throw EVMError(kind: .unavailable, errorCode: "deployment_failed", message: "Deploying \(name) on '\(chain.id)' failed; retry.")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw EVMError(
            kind: .unavailable,
            errorCode: "deployment_pending",
            message: "\(name) is still being deployed on '\(chain.id)'; retry shortly."
        )
    }

    private func recorded(_ name: String, chain: String) async throws -> EthereumAddress? {
        try await context.database.read { connection in
            try connection.queryFirst("SELECT address FROM evm_contracts WHERE chain = \(chain) AND name = \(name)")
                .map { try EthereumAddress(try $0.text("address")) }
        }
    }

    private func pendingDeployment(_ name: String, chain: String) async throws -> String? {
        try await context.database.read { connection in
            try connection.queryFirst(
                "SELECT id FROM evm_operations WHERE chain = \(chain) AND kind = 'deploy' AND subject = \(name) AND state = 'pending'"
            )?.text("id")
        }
    }
}
