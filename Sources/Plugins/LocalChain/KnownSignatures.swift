import ChainKit

/// A function or event of a token standard the explorer can name without the contract's ABI: the
/// hub knows no deployed contract's interface, but ERC-20 and ERC-721 fix theirs, so a call whose
/// selector (or a log whose first topic) is one of these is decoded with the standard's names.
///
/// A selector names a signature, not a contract: a contract that happens to use
/// `transfer(address,uint256)` for something else is shown as a transfer all the same, which is
/// what every explorer without the ABI does.
struct KnownSignature: Sendable, Equatable {
    struct Parameter: Sendable, Equatable {
        var name: String
        var type: ABIType
        /// For events: whether the value is a topic rather than in the data.
        var indexed = false
    }

    var name: String
    /// `ERC-20`, `ERC-721`, or both where the two share the signature.
    var standard: String
    /// The 4-byte selector of a function or the first topic of an event, as lowercase `0x` hex.
    /// Written out (rather than hashed at start-up) so the table reads like a block explorer's;
    /// `KnownSignaturesTests` recomputes each with keccak-256.
    var selector: String
    var parameters: [Parameter]

    /// The canonical signature the selector is the hash of, e.g. `transfer(address,uint256)`.
    var signature: String { "\(name)(\(parameters.map(\.type.description).joined(separator: ",")))" }
}

/// The table: ERC-20 (EIP-20), ERC-721 (EIP-721) and the two allowance helpers every ERC-20
/// library adds.
enum KnownSignatures {
    private static func p(_ name: String, _ type: ABIType, indexed: Bool = false) -> KnownSignature.Parameter {
        .init(name: name, type: type, indexed: indexed)
    }

    /// Functions, by selector. `transferFrom` and `approve` are the same in both standards; their
    /// last argument is an amount for an ERC-20 token and a token id for an ERC-721 one, which
    /// calldata alone cannot tell apart, so it keeps ERC-20's name `value`.
    static let functions: [KnownSignature] = [
        .init(name: "transfer", standard: "ERC-20", selector: "0xa9059cbb", parameters: [p("to", .address), p("value", .uint(bits: 256))]),
        .init(
            name: "transferFrom",
            standard: "ERC-20/ERC-721",
            selector: "0x23b872dd",
            parameters: [p("from", .address), p("to", .address), p("value", .uint(bits: 256))]
        ),
        .init(
            name: "approve",
            standard: "ERC-20/ERC-721",
            selector: "0x095ea7b3",
            parameters: [p("spender", .address), p("value", .uint(bits: 256))]
        ),
        .init(
            name: "increaseAllowance",
            standard: "ERC-20",
            selector: "0x39509351",
            parameters: [p("spender", .address), p("added_value", .uint(bits: 256))]
        ),
        .init(
            name: "decreaseAllowance",
            standard: "ERC-20",
            selector: "0xa457c2d7",
            parameters: [p("spender", .address), p("subtracted_value", .uint(bits: 256))]
        ),
        .init(
            name: "safeTransferFrom",
            standard: "ERC-721",
            selector: "0x42842e0e",
            parameters: [p("from", .address), p("to", .address), p("token_id", .uint(bits: 256))]
        ),
        .init(
            name: "safeTransferFrom",
            standard: "ERC-721",
            selector: "0xb88d4fde",
            parameters: [p("from", .address), p("to", .address), p("token_id", .uint(bits: 256)), p("data", .bytes)]
        ),
        .init(
            name: "setApprovalForAll",
            standard: "ERC-721",
            selector: "0xa22cb465",
            parameters: [p("operator", .address), p("approved", .bool)]
        ),
    ]

    /// Events, by first topic. `Transfer` and `Approval` have one signature in both standards and
    /// differ in what is indexed (ERC-721 indexes the token id), so each appears twice and a log
    /// is matched by its number of topics too.
    static let events: [KnownSignature] = [
        .init(
            name: "Transfer",
            standard: "ERC-20",
            selector: transferTopic,
            parameters: [p("from", .address, indexed: true), p("to", .address, indexed: true), p("value", .uint(bits: 256))]
        ),
        .init(
            name: "Transfer",
            standard: "ERC-721",
            selector: transferTopic,
            parameters: [p("from", .address, indexed: true), p("to", .address, indexed: true), p("token_id", .uint(bits: 256), indexed: true)]
        ),
        .init(
            name: "Approval",
            standard: "ERC-20",
            selector: approvalTopic,
            parameters: [p("owner", .address, indexed: true), p("spender", .address, indexed: true), p("value", .uint(bits: 256))]
        ),
        .init(
            name: "Approval",
            standard: "ERC-721",
            selector: approvalTopic,
            parameters: [
                p("owner", .address, indexed: true), p("approved", .address, indexed: true), p("token_id", .uint(bits: 256), indexed: true),
            ]
        ),
        .init(
            name: "ApprovalForAll",
            standard: "ERC-721",
            selector: "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31",
            parameters: [p("owner", .address, indexed: true), p("operator", .address, indexed: true), p("approved", .bool)]
        ),
    ]

    static let transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    static let approvalTopic = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925"
}
