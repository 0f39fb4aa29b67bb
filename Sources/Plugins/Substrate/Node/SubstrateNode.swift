import ChainKit

/// The Substrate JSON-RPC calls the rail makes, typed, over one ``NodeConnection``. Shapes as
/// Substrate nodes answer them: hashes `0x` + 64 hex digits, block numbers in headers `0x`
/// quantities, storage `0x` + SCALE bytes or null.
struct SubstrateNode: Sendable {
    let connection: NodeConnection

    /// The hash of block `number` (`chain_getBlockHash`), nil when the node has no such block.
    func blockHash(_ number: UInt64) async throws -> [UInt8]? {
        let answer = try await connection.call("chain_getBlockHash", [.number(String(number))])
        if answer.isNull { return nil }
        return try Self.hash(answer, "chain_getBlockHash")
    }

    /// The number and hash of the last finalized block.
    func finalizedHead() async throws -> (number: UInt64, hash: [UInt8]) {
        let hash = try Self.hash(try await connection.call("chain_getFinalizedHead"), "chain_getFinalizedHead")
        return (try await number(of: hash), hash)
    }

    /// The best block's number (`chain_getHeader` without a hash).
    func bestNumber() async throws -> UInt64 {
        try Self.number(try await connection.call("chain_getHeader"))
    }

    /// The number of the block `hash`.
    func number(of hash: [UInt8]) async throws -> UInt64 {
        try Self.number(try await connection.call("chain_getHeader", [.hex(hash)]))
    }

    /// The extrinsics of block `hash`, each as the bytes the node keeps (with their length prefix).
    func extrinsics(of hash: [UInt8]) async throws -> [[UInt8]] {
        let answer = try await connection.call("chain_getBlock", [.hex(hash)])
        guard case .array(let items)? = answer["block"]?["extrinsics"] else {
            throw NodeRPCError.unexpected("chain_getBlock has no block.extrinsics")
        }
        return try items.map { item in
            guard let bytes = item.bytes else { throw NodeRPCError.unexpected("an extrinsic that is not hex") }
            return bytes
        }
    }

    /// The runtime version the node runs now (`state_getRuntimeVersion`): what a signature commits to.
    func runtimeVersion() async throws -> (specVersion: UInt32, transactionVersion: UInt32) {
        let answer = try await connection.call("state_getRuntimeVersion")
        guard let spec = answer["specVersion"]?.unsigned.flatMap({ UInt32(exactly: $0) }),
            let transaction = answer["transactionVersion"]?.unsigned.flatMap({ UInt32(exactly: $0) })
        else { throw NodeRPCError.unexpected("state_getRuntimeVersion has no specVersion and transactionVersion") }
        return (spec, transaction)
    }

    /// The runtime's metadata (`state_getMetadata`), decoded.
    func metadata() async throws -> RuntimeMetadata {
        guard let bytes = try await connection.call("state_getMetadata", timeout: .seconds(60)).bytes else {
            throw NodeRPCError.unexpected("state_getMetadata did not answer hex")
        }
        return try RuntimeMetadata(bytes: bytes)
    }

    /// The nonce the account's next extrinsic must carry, counting those in the node's pool
    /// (`system_accountNextIndex`).
    func accountNextIndex(_ address: String) async throws -> UInt64 {
        guard let nonce = try await connection.call("system_accountNextIndex", [.string(address)]).unsigned else {
            throw NodeRPCError.unexpected("system_accountNextIndex did not answer a number")
        }
        return nonce
    }

    /// The value at `key` (at block `at`, or the best block), nil when there is none.
    func storage(_ key: StorageKey, at block: [UInt8]? = nil) async throws -> [UInt8]? {
        var params: [NodeJSON] = [.hex(key.bytes)]
        if let block { params.append(.hex(block)) }
        let answer = try await connection.call("state_getStorage", params)
        if answer.isNull { return nil }
        guard let bytes = answer.bytes else { throw NodeRPCError.unexpected("state_getStorage did not answer hex or null") }
        return bytes
    }

    /// Submits a signed extrinsic and watches it (`author_submitAndWatchExtrinsic`): the
    /// subscription and its status updates.
    func submitAndWatch(_ extrinsic: [UInt8]) async throws -> (id: String, updates: AsyncStream<NodeJSON>) {
        try await connection.subscribe("author_submitAndWatchExtrinsic", [.hex(extrinsic)])
    }

    /// Stops watching (`author_unwatchExtrinsic`); a node that already forgot it is fine.
    func unwatch(_ subscription: String) async {
        connection.endSubscription(subscription)
        _ = try? await connection.call("author_unwatchExtrinsic", [.string(subscription)], timeout: .seconds(5))
    }

    private static func hash(_ value: NodeJSON, _ method: String) throws -> [UInt8] {
        guard let bytes = value.bytes, bytes.count == 32 else { throw NodeRPCError.unexpected("\(method) did not answer a 32-byte hash") }
        return bytes
    }

    private static func number(_ header: NodeJSON) throws -> UInt64 {
        guard let number = header["number"]?.unsigned else { throw NodeRPCError.unexpected("a header without a number") }
        return number
    }
}

/// An extrinsic's status as `author_extrinsicUpdate` notifications carry it (Substrate's
/// `TransactionStatus`): a string, or an object of one member.
enum TransactionStatus: Equatable, Sendable {
    case future
    case ready
    case broadcast
    case inBlock([UInt8])
    case retracted
    case finalityTimeout
    case finalized([UInt8])
    case usurped
    case dropped
    case invalid

    init?(_ value: NodeJSON) {
        switch value {
        case .string("future"): self = .future
        case .string("ready"): self = .ready
        case .string("dropped"): self = .dropped
        case .string("invalid"): self = .invalid
        case .object(let members) where members.count == 1:
            let (name, argument) = members.first!
            switch name {
            case "broadcast": self = .broadcast
            case "inBlock": guard let hash = argument.bytes else { return nil }; self = .inBlock(hash)
            case "finalized": guard let hash = argument.bytes else { return nil }; self = .finalized(hash)
            case "retracted": self = .retracted
            case "finalityTimeout": self = .finalityTimeout
            case "usurped": self = .usurped
            default: return nil
            }
        default: return nil
        }
    }
}
