/// Chain ids of public networks, which an event chain must not reuse: a transaction signed for an
/// event chain with the id of Ethereum mainnet is a valid mainnet transaction too (EIP-155 binds a
/// signature to the id, nothing else), so an attendee's payment could be replayed where the same
/// key holds real money.
///
/// Maintained by hand from each network's own documentation (and the chain-id registry that wallets
/// use, ethereum-lists/chains): the networks with real value or wide wallet support, and their
/// public testnets. Local development ids (1337, 31337) are not public and stay allowed. An
/// operator who runs a private network on one of these ids on purpose lists it in the rail's
/// `allowed_public_chain_ids`.
enum PublicChainIDs {
    static let all: [UInt64: String] = [
        // Ethereum and its testnets
        1: "Ethereum mainnet", 3: "Ropsten", 4: "Rinkeby", 5: "Goerli", 42: "Kovan", 11_155_111: "Sepolia", 17_000: "Holesky",
        560_048: "Hoodi", 61: "Ethereum Classic", 63: "Mordor (Ethereum Classic testnet)",
        // Large layer-2 networks and their testnets
        10: "OP Mainnet", 11_155_420: "OP Sepolia", 42_161: "Arbitrum One", 42_170: "Arbitrum Nova", 421_614: "Arbitrum Sepolia",
        8_453: "Base", 84_532: "Base Sepolia", 324: "zkSync Era", 300: "zkSync Sepolia", 1_101: "Polygon zkEVM",
        59_144: "Linea", 59_141: "Linea Sepolia", 534_352: "Scroll", 534_351: "Scroll Sepolia", 81_457: "Blast",
        5_000: "Mantle", 7_777_777: "Zora", 1_313_161_554: "Aurora",
        // Other large EVM networks
        56: "BNB Smart Chain", 97: "BNB Smart Chain testnet", 137: "Polygon PoS", 80_001: "Polygon Mumbai", 80_002: "Polygon Amoy",
        100: "Gnosis", 10_200: "Gnosis Chiado", 43_114: "Avalanche C-Chain", 43_113: "Avalanche Fuji", 250: "Fantom Opera",
        42_220: "Celo", 25: "Cronos", 1_666_600_000: "Harmony", 1_284: "Moonbeam", 1_285: "Moonriver", 1_287: "Moonbase Alpha",
        // Kaia (formerly Klaytn)
        8_217: "Kaia mainnet (Cypress)", 1_001: "Kaia testnet (Kairos, formerly Baobab)",
        // peaq's EVM
        3_338: "peaq", 9_990: "peaq agung testnet", 2_241: "krest (peaq canary network)",
    ]
}
