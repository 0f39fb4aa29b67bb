import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which network addresses webhooks may be delivered to (server-side request forgery).
///
/// A webhook URL is typed by an admin but fetched by the hub, from inside the hub's network: left
/// open, `http://169.254.169.254/latest/meta-data` reads the cloud's instance credentials, and
/// `http://127.0.0.1:5432` probes the hub's own database. So by default a webhook is delivered
/// only to public addresses: loopback, private (RFC 1918, unique-local), link-local (where cloud
/// metadata lives), carrier-grade NAT, multicast, documentation and reserved ranges are refused,
/// also when written in IPv4-mapped IPv6 or NAT64 form or in the decimal, octal and hex spellings
/// an IPv4 parser accepts. The check runs on the URL when an endpoint is saved (a literal address
/// or `localhost`) and on every address the host resolves to at each delivery, and the delivery
/// connects to the address checked (no second DNS answer can swap it).
///
/// A deployment with receivers on its private network lists them in `allowedNetworks`
/// (`HUB_WEBHOOK_ALLOW_PRIVATE=10.1.0.0/16,fd00::/8`).
public struct WebhookAddressPolicy: Sendable, Equatable {
    /// Networks delivered to although they are not public.
    public var allowedNetworks: [IPNetwork]

    public init(allowedNetworks: [IPNetwork] = []) {
        self.allowedNetworks = allowedNetworks
    }

    /// Why `address` (4 or 16 bytes) may not receive webhooks, or `nil` when it may.
    public func refusal(for address: [UInt8]) -> String? {
        if allowedNetworks.contains(where: { $0.contains(address) }) { return nil }
        if address.count == 16, let embedded = Self.embeddedIPv4(address) {
            return refusal(for: embedded).map { "\(IPNetwork.text(address)) embeds \($0)" }
        }
        for (network, kind) in Self.refused where network.contains(address) {
            return "\(IPNetwork.text(address)) is a \(kind) address"
        }
        return nil
    }

    /// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`)
    /// or NAT64 (`64:ff9b::a.b.c.d`) IPv6 address.
    static func embeddedIPv4(_ address: [UInt8]) -> [UInt8]? {
        let prefix = Array(address[0..<12])
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let nat64: [UInt8] = [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        let compatible = [UInt8](repeating: 0, count: 12)
        guard prefix == mapped || prefix == nat64 || (prefix == compatible && address[12..<16] != [0, 0, 0, 0] && address[12..<16] != [0, 0, 0, 1])
        else { return nil }
        return Array(address[12..<16])
    }

    /// The ranges no webhook goes to unless allowed (IANA's special-purpose registries).
    static let refused: [(IPNetwork, String)] = [
        ("0.0.0.0/8", "\"this network\""), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local (cloud metadata)"), ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol"), ("192.0.2.0/24", "documentation"), ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"), ("198.51.100.0/24", "documentation"), ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("100::/64", "discard"), ("2001:db8::/32", "documentation"),
        ("fc00::/7", "unique-local (private)"), ("fe80::/10", "link-local"), ("fec0::/10", "site-local"), ("ff00::/8", "multicast"),
    ].map { (IPNetwork(parsing: $0.0)!, $0.1) }

    // MARK: Names and resolution

    /// Checks a URL's host when an endpoint is saved: a literal address (any spelling) must be
    /// allowed, and `localhost` names are refused outright. Other names are checked when resolved.
    /// Does no DNS lookup (numeric parsing only), so it may run anywhere.
    public func refusal(forHost host: String) -> String? {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
        if name == "localhost" || name.hasSuffix(".localhost") {
            return allowedNetworks.contains(where: { $0.contains([127, 0, 0, 1]) }) ? nil : "\(host) is this machine (loopback)"
        }
        return Self.numericAddresses(name).lazy.compactMap { refusal(for: $0) }.first
    }

    /// The addresses a literal host denotes (empty for a name): `getaddrinfo` with
    /// `AI_NUMERICHOST`, which reads every spelling the C library's IPv4 parser accepts.
    static func numericAddresses(_ host: String) -> [[UInt8]] {
        (try? addresses(of: host, port: 0, numericOnly: true)) ?? []
    }

    /// Every address `host` resolves to. Blocks on DNS: call it off Swift's cooperative pool.
    static func addresses(of host: String, port: Int, numericOnly: Bool = false) throws -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw WebhookError(.transportFailed, "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var found: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        found.append(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        found.append(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })
                    }
                default: break
                }
            }
            cursor = info.pointee.ai_next
        }
        var unique: [[UInt8]] = []
        for address in found where !unique.contains(address) { unique.append(address) }
        return unique
    }
}

/// An IPv4 or IPv6 network in CIDR form (`10.0.0.0/8`, `fd00::/8`, or one address).
public struct IPNetwork: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let address: [UInt8]
    public let prefixLength: Int

    /// Parses `ADDRESS/BITS` or a single address. `nil` when malformed.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = Self.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.address = address
        self.prefixLength = prefix
    }

    public init(stringLiteral text: String) {
        guard let network = IPNetwork(parsing: text) else { preconditionFailure("'\(text)' is not a CIDR network") }
        self = network
    }

    /// Whether `address` lies in this network (an IPv4 address never lies in an IPv6 network).
    public func contains(_ other: [UInt8]) -> Bool {
        guard other.count == address.count else { return false }
        var remaining = prefixLength
        for (index, byte) in address.enumerated() where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            guard byte & mask == other[index] & mask else { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String { "\(Self.text(address))/\(prefixLength)" }

    /// A dotted-quad or IPv6 address in its strict textual form.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// An address as text (`169.254.169.254`, `::ffff:a9fe:a9fe`).
    static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        let ok = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }
}
