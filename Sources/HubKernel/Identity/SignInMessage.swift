import Foundation

/// A sign-in message in the text form EIP-4361 (Sign-In with Ethereum) defines and CAIP-122
/// generalises to other chains: the hub writes its challenges this way, and a wallet library
/// that composes its own message around the hub's nonce (as Sign-In with Ethereum clients do)
/// has it parsed back and checked field by field against the challenge.
///
/// ```text
/// pay.example.org wants you to sign in with your Ethereum account:
/// 0xC0FFEE254729296a45a3885639AC7E10F9d54979
///
/// Sign in to Festival Hub.
///
/// URI: https://pay.example.org
/// Version: 1
/// Chain ID: 1337
/// Nonce: 9f86d081884c7d659a2feaa0c55ad015
/// Issued At: 2026-11-21T09:30:00.000Z
/// Expiration Time: 2026-11-21T09:35:00.000Z
/// ```
public struct SignInMessage: Sendable, Hashable {
    /// The origin scheme written before the domain (`https`), if any.
    public var scheme: String?
    public var domain: String
    /// The kind of account, as the header names it: `Ethereum` under EIP-4361, the chain's name
    /// under CAIP-122.
    public var accountKind: String
    public var address: String
    /// The human-readable purpose; one line, no line break.
    public var statement: String?
    public var uri: String
    public var version: String
    /// Absent only under CAIP-122 for chains without one; EIP-4361 requires it.
    public var chainID: String?
    public var nonce: String
    public var issuedAt: LedgerTimestamp
    public var expirationTime: LedgerTimestamp?
    public var notBefore: LedgerTimestamp?
    public var requestID: String?
    public var resources: [String]?

    public init(
        domain: String,
        accountKind: String,
        address: String,
        statement: String?,
        uri: String,
        chainID: String?,
        nonce: String,
        issuedAt: LedgerTimestamp,
        expirationTime: LedgerTimestamp?
    ) {
        self.domain = domain
        self.accountKind = accountKind
        self.address = address
        self.statement = statement
        self.uri = uri
        self.version = "1"
        self.chainID = chainID
        self.nonce = nonce
        self.issuedAt = issuedAt
        self.expirationTime = expirationTime
    }

    /// The text a wallet shows and signs, line for line as EIP-4361's grammar lays it out.
    public var text: String {
        var lines = ["\(scheme.map { "\($0)://" } ?? "")\(domain) wants you to sign in with your \(accountKind) account:", address, ""]
        if let statement { lines.append(statement) }
        lines.append("")
        lines.append("URI: \(uri)")
        lines.append("Version: \(version)")
        if let chainID { lines.append("Chain ID: \(chainID)") }
        lines.append("Nonce: \(nonce)")
        lines.append("Issued At: \(issuedAt)")
        if let expirationTime { lines.append("Expiration Time: \(expirationTime)") }
        if let notBefore { lines.append("Not Before: \(notBefore)") }
        if let requestID { lines.append("Request ID: \(requestID)") }
        if let resources { lines.append(contentsOf: ["Resources:"] + resources.map { "- \($0)" }) }
        return lines.joined(separator: "\n")
    }

    /// Why a text is not a sign-in message: the line or field at fault, for the client's author.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a message written by ``text`` or by any EIP-4361/CAIP-122 library.
    /// - Throws: ``FormatError`` naming the first line that breaks the grammar.
    public static func parse(_ text: String) throws(FormatError) -> SignInMessage {
        var reader = LineReader(text)
        let header = try reader.next("the header")
        let marker = " wants you to sign in with your "
        guard let markerRange = header.range(of: marker), header.hasSuffix(" account:") else {
            throw FormatError(description: "the first line is not '<domain> wants you to sign in with your <kind> account:'")
        }
        var origin = String(header[..<markerRange.lowerBound])
        var scheme: String?
        if let separator = origin.range(of: "://") {
            scheme = String(origin[..<separator.lowerBound])
            origin = String(origin[separator.upperBound...])
        }
        let accountKind = String(header[markerRange.upperBound...].dropLast(" account:".count))
        guard !origin.isEmpty, !origin.contains(" "), !accountKind.isEmpty else {
            throw FormatError(description: "the header names no domain or no kind of account")
        }
        let address = try reader.next("the address")
        guard !address.isEmpty, !address.contains(" ") else { throw FormatError(description: "the second line is not an address") }
        guard try reader.next("a blank line after the address").isEmpty else {
            throw FormatError(description: "the address is not followed by a blank line")
        }
        var statement: String?
        var line = try reader.next("the URI")
        if !line.isEmpty {
            statement = line
            guard try reader.next("a blank line after the statement").isEmpty else {
                throw FormatError(description: "the statement is one line followed by a blank line")
            }
        }
        line = try reader.next("the URI")
        let uri = try field("URI", of: line)
        let version = try field("Version", of: try reader.next("the version"))
        guard version == "1" else { throw FormatError(description: "version '\(version)' is not 1") }
        var chainID: String?
        line = try reader.next("the nonce")
        if line.hasPrefix("Chain ID: ") {
            chainID = try field("Chain ID", of: line)
            line = try reader.next("the nonce")
        }
        let nonce = try field("Nonce", of: line)
        guard nonce.count >= 8, nonce.utf8.allSatisfy({ isAlphanumeric($0) }) else {
            throw FormatError(description: "the nonce is at least 8 letters and digits")
        }
        let issuedAt = try timestamp("Issued At", of: try reader.next("the issue time"))
        var message = SignInMessage(
            domain: origin,
            accountKind: accountKind,
            address: address,
            statement: statement,
            uri: uri,
            chainID: chainID,
            nonce: nonce,
            issuedAt: issuedAt,
            expirationTime: nil
        )
        message.scheme = scheme
        // The optional fields, each at most once and in the grammar's order.
        var optional = reader.next()
        if let text = optional, text.hasPrefix("Expiration Time: ") {
            message.expirationTime = try timestamp("Expiration Time", of: text)
            optional = reader.next()
        }
        if let text = optional, text.hasPrefix("Not Before: ") {
            message.notBefore = try timestamp("Not Before", of: text)
            optional = reader.next()
        }
        if let text = optional, text.hasPrefix("Request ID: ") {
            message.requestID = try field("Request ID", of: text)
            optional = reader.next()
        }
        if let text = optional, text == "Resources:" {
            var resources: [String] = []
            while let item = reader.next() {
                guard item.hasPrefix("- "), item.count > 2 else { throw FormatError(description: "a resource line is '- <uri>'") }
                resources.append(String(item.dropFirst(2)))
            }
            message.resources = resources
            optional = nil
        }
        if let text = optional { throw FormatError(description: "unexpected line '\(text.prefix(40))'") }
        return message
    }

    private static func field(_ name: String, of line: String) throws(FormatError) -> String {
        let prefix = "\(name): "
        guard line.hasPrefix(prefix), line.count > prefix.count else { throw FormatError(description: "expected '\(name): …'") }
        return String(line.dropFirst(prefix.count))
    }

    private static func timestamp(_ name: String, of line: String) throws(FormatError) -> LedgerTimestamp {
        var text = try field(name, of: line)
        // RFC 3339 in UTC, as `Z` or as the equivalent `+00:00` that some libraries write.
        if text.hasSuffix("+00:00") { text = String(text.dropLast(6)) + "Z" }
        guard let time = RFC3339.parse(text) else { throw FormatError(description: "'\(name)' is not an RFC 3339 time in UTC") }
        return time
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// The message's lines, split on `\n` only (EIP-4361's LF), kept empty where blank.
    private struct LineReader {
        private var lines: [Substring]
        private var index = 0

        init(_ text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

        mutating func next() -> String? {
            guard index < lines.count else { return nil }
            defer { index += 1 }
            return String(lines[index])
        }

        mutating func next(_ expected: String) throws(FormatError) -> String {
            guard let line = next() else { throw FormatError(description: "the message ends before \(expected)") }
            return line
        }
    }
}
