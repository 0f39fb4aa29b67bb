import Foundation
import HubKernel
import Hummingbird
import NIOCore

/// `POST /v1/rails/localchain/chains/{id}/rpc`: JSON-RPC 2.0 (single calls and batches) over
/// HTTP, as Ethereum wallets and libraries speak it. Errors follow the spec's codes: -32700 parse
/// error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal
/// error, and -32000 for a refused transaction (as Ethereum nodes answer). The HTTP status is 200
/// for every JSON-RPC answer, as clients expect.
struct JSONRPCEndpoint: Sendable {
    let methods: EthereumRPC

    static let maxBatch = 100

    struct RPCError: Error {
        var code: Int
        var message: String
        var data: Any?

        static func invalidParams(_ message: String) -> RPCError { RPCError(code: -32602, message: message) }
    }

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("chains/{id}/rpc", use: handle)
    }

    @Sendable func handle(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let text = context.parameters.get("id"), let chainID = UInt64(text),
            try await methods.chainExists(chainID)
        else { throw Problem.notFound("chain") }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let answer: Any
        if let parsed = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed]) {
            if let batch = parsed as? [Any] {
                if batch.isEmpty {
                    answer = Self.failure(id: NSNull(), RPCError(code: -32600, message: "an empty batch"))
                } else if batch.count > Self.maxBatch {
                    answer = Self.failure(id: NSNull(), RPCError(code: -32600, message: "a batch holds at most \(Self.maxBatch) calls"))
                } else {
                    var answers: [Any] = []
                    for call in batch {
                        if let one = await answerCall(call, chainID: chainID) { answers.append(one) }
                    }
                    // A batch of notifications only gets no answer at all.
                    if answers.isEmpty { return Response(status: .noContent) }
                    answer = answers
                }
            } else {
                guard let one = await answerCall(parsed, chainID: chainID) else { return Response(status: .noContent) }
                answer = one
            }
        } else {
            answer = Self.failure(id: NSNull(), RPCError(code: -32700, message: "parse error: the body is not JSON"))
        }
        let data = try JSONSerialization.data(withJSONObject: answer, options: [.withoutEscapingSlashes])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// One call's answer, or `nil` for a notification (no `id`).
    func answerCall(_ call: Any, chainID: UInt64) async -> Any? {
        guard let object = call as? [String: Any] else {
            return Self.failure(id: NSNull(), RPCError(code: -32600, message: "a call is a JSON object"))
        }
        let id = object["id"]
        let validID = id == nil || id is String || id is NSNull || id is NSNumber
        guard object["jsonrpc"] as? String == "2.0", let method = object["method"] as? String, validID else {
            return Self.failure(
                id: validID ? (id ?? NSNull()) : NSNull(),
                RPCError(code: -32600, message: "expected {\"jsonrpc\": \"2.0\", \"method\", \"id\"}")
            )
        }
        let params: [Any]
        switch object["params"] {
        case nil, is NSNull: params = []
        case let list as [Any]: params = list
        default:
            return Self.failure(id: id ?? NSNull(), RPCError.invalidParams("params must be an array"))
        }
        do {
            let result = try await methods.call(method, params, chainID: chainID)
            guard let id else { return nil }
            return ["jsonrpc": "2.0", "id": id, "result": result]
        } catch let error as RPCError {
            guard let id else { return nil }
            return Self.failure(id: id, error)
        } catch {
            guard let id else { return nil }
            return Self.failure(id: id, RPCError(code: -32603, message: "internal error"))
        }
    }

    static func failure(id: Any, _ error: RPCError) -> [String: Any] {
        var body: [String: Any] = ["code": error.code, "message": error.message]
        if let data = error.data { body["data"] = data }
        return ["jsonrpc": "2.0", "id": id, "error": body]
    }
}
