import Foundation
import HubKernel
import Hummingbird
import NIOCore

/// `POST /v1/rails/localchain/chains/{id}/rpc`: JSON-RPC 2.0 (single calls and batches) over
/// HTTP, as Ethereum wallets and libraries speak it. Errors follow the spec's codes: -32700 parse
/// error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal
/// error; a domain error by its kind as EIP-1474 assigns codes to Ethereum nodes (a refused
/// transaction is -32003), with its machine code as `data`. The HTTP status is 200 for every
/// JSON-RPC answer, as clients expect.
struct JSONRPCEndpoint: Sendable {
    let methods: EthereumRPC
    var cors = RPCCORS()

    static let maxBatch = 100

    struct RPCError: Error {
        var code: Int
        var message: String
        /// `error.data`: the revert output in hex, or the hub's problem code.
        var data: String?

        static func invalidParams(_ message: String) -> RPCError { RPCError(code: -32602, message: message) }
    }

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("chains/{id}/rpc", use: handle)
        group.on("chains/{id}/rpc", method: .options, use: preflight)
    }

    /// A browser's CORS preflight: an allowed origin may POST JSON; another is refused (403).
    @Sendable func preflight(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let text = context.parameters.get("id"), let chainID = UInt64(text), try await methods.chainExists(chainID) else {
            throw Problem.notFound("chain")
        }
        guard let origin = request.headers[.origin], let allowed = cors.allowedOrigin(origin, chainID: chainID) else {
            throw Problem.forbidden("This origin may not call chain \(chainID)'s JSON-RPC endpoint from a browser.")
        }
        return Response(
            status: .noContent,
            headers: [
                .accessControlAllowOrigin: allowed, .accessControlAllowMethods: "POST, OPTIONS",
                .accessControlAllowHeaders: "Content-Type", .accessControlMaxAge: "600", .vary: "Origin",
            ]
        )
    }

    /// The CORS headers of an answer to `request` (none for a request without an allowed origin).
    func corsHeaders(_ request: Request, chainID: UInt64) -> HTTPFields {
        guard let origin = request.headers[.origin], let allowed = cors.allowedOrigin(origin, chainID: chainID) else { return [:] }
        return [.accessControlAllowOrigin: allowed, .vary: "Origin"]
    }

    @Sendable func handle(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let text = context.parameters.get("id"), let chainID = UInt64(text),
            try await methods.chainExists(chainID)
        else { throw Problem.notFound("chain") }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard let answer = await respond(to: Array(body.readableBytesView), chainID: chainID) else {
            return Response(status: .noContent, headers: corsHeaders(request, chainID: chainID))
        }
        var headers: HTTPFields = [.contentType: "application/json"]
        headers.append(contentsOf: corsHeaders(request, chainID: chainID))
        return Response(
            status: .ok,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: answer))
        )
    }

    /// The answer to a request body (one call or a batch) as JSON bytes, or `nil` when it held
    /// only notifications. Both the HTTP endpoint and other rails in process
    /// (``LocalChainHosting``) come through here, and each message of a WebSocket connection,
    /// with its `socket` (``JSONRPCWebSocket``).
    func respond(to body: [UInt8], chainID: UInt64, socket: RPCSocket? = nil) async -> [UInt8]? {
        let answer: Any
        if let parsed = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) {
            if let batch = parsed as? [Any] {
                if batch.isEmpty {
                    answer = Self.failure(id: NSNull(), RPCError(code: -32600, message: "an empty batch"))
                } else if batch.count > Self.maxBatch {
                    answer = Self.failure(id: NSNull(), RPCError(code: -32600, message: "a batch holds at most \(Self.maxBatch) calls"))
                } else {
                    let answers = await answerBatch(batch.map(Self.parse), chainID: chainID, socket: socket)
                    // A batch of notifications only gets no answer at all.
                    if answers.isEmpty { return nil }
                    answer = answers
                }
            } else {
                guard let one = await self.answer(Self.parse(parsed), chainID: chainID, socket: socket) else { return nil }
                answer = one
            }
        } else {
            answer = Self.failure(id: NSNull(), RPCError(code: -32700, message: "parse error: the body is not JSON"))
        }
        return (try? RPCJSON.data(answer)) ?? Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#.utf8)
    }

    /// A call as the request states it, or the answer its malformation earns.
    enum ParsedCall {
        case call(id: Any?, method: String, params: [Any])
        case malformed([String: Any])

        var sendsRawTransaction: Bool {
            if case .call(_, "eth_sendRawTransaction", _) = self { return true }
            return false
        }
    }

    static func parse(_ call: Any) -> ParsedCall {
        guard let object = call as? [String: Any] else {
            return .malformed(failure(id: NSNull(), RPCError(code: -32600, message: "a call is a JSON object")))
        }
        let id = object["id"]
        let validID = id == nil || id is String || id is NSNull || id is NSNumber
        guard object["jsonrpc"] as? String == "2.0", let method = object["method"] as? String, validID else {
            return .malformed(
                failure(
                    id: validID ? (id ?? NSNull()) : NSNull(),
                    RPCError(code: -32600, message: "expected {\"jsonrpc\": \"2.0\", \"method\", \"id\"}")
                )
            )
        }
        switch object["params"] {
        case nil, is NSNull: return .call(id: id, method: method, params: [])
        case let list as [Any]: return .call(id: id, method: method, params: list)
        default: return .malformed(failure(id: id ?? NSNull(), RPCError.invalidParams("params must be an array")))
        }
    }

    /// The answers of a batch, in order, without those of notifications. Consecutive
    /// `eth_sendRawTransaction` calls (how wallets and relays send many) go to the intake together;
    /// every other call is answered in turn, so the batch reads as if its calls ran one by one.
    func answerBatch(_ calls: [ParsedCall], chainID: UInt64, socket: RPCSocket? = nil) async -> [Any] {
        var answers: [Any] = []
        var index = 0
        while index < calls.count {
            var end = index
            while end < calls.count, calls[end].sendsRawTransaction { end += 1 }
            if end - index > 1 {
                var ids: [Any?] = []
                var params: [[Any]] = []
                for case .call(let id, _, let list) in calls[index..<end] {
                    ids.append(id)
                    params.append(list)
                }
                for (id, result) in zip(ids, await methods.sendRawTransactions(params, chainID: chainID)) {
                    if let one = Self.answer(id: id, result) { answers.append(one) }
                }
                index = end
            } else {
                if let one = await answer(calls[index], chainID: chainID, socket: socket) { answers.append(one) }
                index += 1
            }
        }
        return answers
    }

    /// One call's answer, or `nil` for a notification (no `id`).
    func answer(_ call: ParsedCall, chainID: UInt64, socket: RPCSocket? = nil) async -> Any? {
        switch call {
        case .malformed(let answer): return answer
        case .call(let id, let method, let params):
            do {
                return Self.answer(id: id, .success(try await methods.call(method, params, chainID: chainID, socket: socket)))
            } catch {
                return Self.answer(id: id, .failure(error))
            }
        }
    }

    static func answer(id: Any?, _ result: Result<Any, any Error>) -> Any? {
        guard let id else { return nil }
        switch result {
        case .success(let value): return ["jsonrpc": "2.0", "id": id, "result": value]
        case .failure(let error): return failure(id: id, rpcError(error))
        }
    }

    /// The one mapping of a method's error to JSON-RPC: a domain error by its kind (EIP-1474's
    /// codes, ``HubErrorKind/jsonRPCCode``) with its machine code as `data`; a database that cannot
    /// be reached just now (a failover) is -32002 "resource unavailable", `database_unavailable`,
    /// which a client may retry; anything else unexpected is an internal error that says nothing more.
    static func rpcError(_ error: any Error) -> RPCError {
        if let unavailable = DatabaseUnavailable(error) { return rpcError(unavailable) }
        return switch error {
        case let error as RPCError: error
        case let error as any HubError: RPCError(code: error.kind.jsonRPCCode, message: error.message, data: error.errorCode)
        default: RPCError(code: -32603, message: "internal error")
        }
    }

    static func failure(id: Any, _ error: RPCError) -> [String: Any] {
        var body: [String: Any] = ["code": error.code, "message": error.message]
        if let data = error.data { body["data"] = data }
        return ["jsonrpc": "2.0", "id": id, "error": body]
    }
}
