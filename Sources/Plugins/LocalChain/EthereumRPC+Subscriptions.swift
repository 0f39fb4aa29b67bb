import Foundation
import HubKernel

/// `eth_subscribe` and `eth_unsubscribe`, on a WebSocket connection (``RPCSocket``): `newHeads`
/// (each new block's header) and `logs` (each new log matching `address` and `topics`, as
/// `eth_getLogs` matches them). Over plain HTTP they are -32601, naming the WebSocket.
extension EthereumRPC {
    func subscribe(_ params: [Any], chainID: UInt64, socket: RPCSocket) async throws -> String {
        let kind = try Self.subscriptionKind(params)
        let head = try await chain(chainID).headNumber
        guard let id = socket.subscribe(kind, after: head) else {
            throw RPCError(code: -32005, message: "too many subscriptions on this connection (\(socket.limits.subscriptions)); unsubscribe some")
        }
        return id
    }

    func unsubscribe(_ params: [Any], socket: RPCSocket) throws -> Bool {
        guard params.count == 1, let id = params[0] as? String else { throw RPCError.invalidParams("eth_unsubscribe takes a subscription id") }
        return socket.unsubscribe(id)
    }

    /// What `eth_subscribe`'s parameters ask for, checked.
    static func subscriptionKind(_ params: [Any]) throws -> RPCSocket.Kind {
        guard let name = params.first as? String else {
            throw RPCError.invalidParams("eth_subscribe takes a subscription type: newHeads or logs")
        }
        let options = params.count > 1 ? params[1] : NSNull()
        guard params.count <= 2 else { throw RPCError.invalidParams("eth_subscribe takes a type and at most one filter object") }
        switch name {
        case "newHeads":
            guard options is NSNull || (options as? [String: Any])?.isEmpty == true else {
                throw RPCError.invalidParams("newHeads takes no filter")
            }
            return .newHeads
        case "logs":
            let object: [String: Any]
            switch options {
            case is NSNull: object = [:]
            case let given as [String: Any]: object = given
            default: throw RPCError.invalidParams("a logs subscription takes a filter object with address and topics")
            }
            // It follows new blocks: a range or a block would say something it cannot do.
            for key in ["fromBlock", "toBlock", "blockHash"] where object[key] != nil {
                throw RPCError.invalidParams("a logs subscription follows new blocks: it takes address and topics, not \(key)")
            }
            let filter = try logFilter(object, head: 0)
            return .logs(addresses: filter.addresses, topics: filter.topics)
        default:
            throw RPCError.invalidParams("unknown subscription type '\(name)': newHeads or logs")
        }
    }
}
