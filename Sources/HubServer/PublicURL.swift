import Foundation

/// The URL clients reach the hub at (`HUB_PUBLIC_URL`): `http` or `https`, a host with an
/// optional port, no path. Wallet sign-in messages name its authority as their domain.
public struct PublicURL: Sendable, Hashable {
    public var scheme: String
    /// `host[:port]`, as EIP-4361 writes a domain.
    public var authority: String

    public init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    /// Parses `https://pay.example.org` or `http://10.0.0.5:8080` (a trailing `/` allowed).
    public init?(_ text: String) {
        var rest = Substring(text)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let separator = rest.range(of: "://") else { return nil }
        let scheme = rest[..<separator.lowerBound].lowercased()
        let authority = rest[separator.upperBound...]
        guard scheme == "http" || scheme == "https", !authority.isEmpty,
            authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }), authority.first != ":"
        else { return nil }
        self.scheme = scheme
        self.authority = authority.lowercased()
    }

    public var text: String { "\(scheme)://\(authority)" }
}
