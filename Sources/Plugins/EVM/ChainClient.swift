import ChainKit
import Foundation
import HubKernel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A chain's JSON-RPC, wherever the node is: in process for a chain of this hub, over HTTP for
/// any other (geth, Kaia, a testnet's provider). The rail speaks only Ethereum's public JSON-RPC
/// to either, so a chain of this hub and an external one behave alike.
protocol ChainTransport: Sendable {
    /// Sends one JSON-RPC request body and returns the answer's bytes.
    func send(_ body: [UInt8]) async throws -> [UInt8]
}

/// Calls on one chain's JSON-RPC: builds the request, sends it, unwraps `result` or turns an
/// `error` into ``EVMError/nodeError(_:code:message:)``.
struct ChainClient: Sendable {
    let chain: String
    let transport: any ChainTransport

    /// `method(params)`'s `result` as JSONSerialization decodes it (`String`, `[String: Any]`,
    /// `[Any]`, `NSNull`).
    func call(_ method: String, _ params: [Any] = []) async throws -> Any {
        let request: [String: Any] = ["jsonrpc": "2.0", "id": 1, "method": method, "params": params]
        let body = Array(try JSONSerialization.data(withJSONObject: request))
        let answer = try await transport.send(body)
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any] else {
            throw EVMError.chainUnavailable(chain, "the answer to \(method) is not a JSON-RPC object")
        }
        if let error = object["error"] as? [String: Any] {
            throw EVMError.nodeError(chain, code: (error["code"] as? Int) ?? 0, message: (error["message"] as? String) ?? "no message")
        }
        guard let result = object["result"] else { throw EVMError.chainUnavailable(chain, "the answer to \(method) has no result") }
        return result
    }

    /// A `0x…` quantity result as an integer.
    func quantity(_ method: String, _ params: [Any] = []) async throws -> UInt64 {
        let result = try await call(method, params)
        guard let text = result as? String, let value = Self.quantity(text) else {
            throw EVMError.chainUnavailable(chain, "\(method) did not answer a hex quantity")
        }
        return value
    }

    /// `eth_call` at the latest block: the returned bytes.
    /// `eth_call` at `block` (a tag such as `latest`, or a block number as a hex quantity).
    func ethCall(to contract: EthereumAddress, data: [UInt8], from: EthereumAddress? = nil, block: String = "latest") async throws -> [UInt8] {
        var call: [String: Any] = ["to": contract.checksummed, "data": Hex.encode(data)]
        if let from { call["from"] = from.checksummed }
        guard let text = try await self.call("eth_call", [call, block]) as? String, let bytes = try? Hex.decode(text) else {
            throw EVMError.chainUnavailable(chain, "eth_call did not answer hex data")
        }
        return bytes
    }

    /// What one of the rail's contracts (marketplace, courses) owes `account`, at `block`.
    func pendingWithdrawal(_ contract: EthereumAddress, of account: EthereumAddress, block: String = "latest") async throws -> UInt256 {
        let data = try await ethCall(
            to: contract,
            data: try ABI.calldata("pendingWithdrawal(address)", types: [.address], values: [.address(account)]),
            block: block
        )
        guard case .uint(let amount)? = try ABI.decode([.uint(bits: 256)], data).first else {
            throw EVMError.chainUnavailable(chain, "pendingWithdrawal did not answer a number")
        }
        return amount
    }

    static func quantity(_ text: String) -> UInt64? {
        guard text.hasPrefix("0x"), text.count > 2, text.count <= 18 else { return nil }
        return UInt64(text.dropFirst(2), radix: 16)
    }
}

/// A chain of this hub, through the kernel's ``HostedChainRegistry``.
struct HostedChainTransport: ChainTransport {
    let chainID: UInt64
    let provider: any HostedChainProvider

    func send(_ body: [UInt8]) async throws -> [UInt8] {
        guard let answer = try await provider.rpc(chainID: chainID, request: body) else {
            throw EVMError.chainUnavailable("\(chainID)", "the hub's chain gave no answer")
        }
        return answer
    }
}

/// A node over HTTP(S). Each call is bounded (10 s); a node that does not answer is
/// ``EVMError/chainUnavailable(_:_:)``, never a hang.
struct HTTPChainTransport: ChainTransport {
    let chain: String
    let url: URL
    var timeout: TimeInterval = 10

    func send(_ body: [UInt8]) async throws -> [UInt8] {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw EVMError.chainUnavailable(chain, error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw EVMError.chainUnavailable(chain, "the node answered HTTP \(status)") }
        return Array(data)
    }
}
