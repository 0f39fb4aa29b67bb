import HubKernel

/// Which browser origins may call a chain's JSON-RPC endpoint (CORS): a dapp in a browser calls it
/// directly, so its preflight must be answered. Per chain, with a default for chains without a
/// list of their own; `*` allows any origin (the default: the endpoint is public and takes no
/// credentials, like a public Ethereum node's). Hummingbird's `CORSMiddleware` has one policy
/// for a whole router, hence this small per-chain one.
struct RPCCORS: Sendable, Equatable {
    var defaultOrigins: [String] = ["*"]
    var byChain: [UInt64: [String]] = [:]

    /// The `Access-Control-Allow-Origin` value for a request from `origin` to chain `chainID`, or
    /// `nil` when that origin is not allowed.
    func allowedOrigin(_ origin: String, chainID: UInt64) -> String? {
        let origins = byChain[chainID] ?? defaultOrigins
        if origins.contains("*") { return "*" }
        return origins.contains(origin.lowercased()) ? origin : nil
    }

    /// Parses `rpc_allowed_origins`: `{"*": [origins], "<chain id>": [origins]}`, each origin `*`
    /// or `http(s)://host[:port]` without a path.
    init(config: [String: [String]]?) throws {
        guard let config else { return }
        for (key, origins) in config {
            let field = "rpc_allowed_origins.\(key)"
            for origin in origins where !Self.isOrigin(origin) {
                throw PluginConfigError(field: field, message: "'\(origin)' is not * or an origin such as https://app.example:8443")
            }
            let lowered = origins.map { $0.lowercased() }
            if key == "*" {
                defaultOrigins = lowered
            } else if let chainID = UInt64(key) {
                byChain[chainID] = lowered
            } else {
                throw PluginConfigError(field: field, message: "a key is * or a chain id")
            }
        }
    }

    init() {}

    static func isOrigin(_ text: String) -> Bool {
        if text == "*" { return true }
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return !rest.isEmpty && !rest.contains("/") && !rest.contains(" ")
        }
        return false
    }
}
