/// Email addresses as identity stores them: trimmed and lowercased, so `Ann@Example.org` and
/// `ann@example.org` are one account.
///
/// The check is deliberately plain rather than RFC 5322 complete: ASCII only (internationalised
/// domains in their `xn--` form), one `@`, a local part of 1…64 characters from the unquoted
/// "atom" set with single dots between atoms, and a domain of at least two dot-separated labels of
/// letters, digits and inner hyphens. Quoted local parts and IP-literal domains are refused: real
/// sign-ups do not use them, and every character accepted here is safe in a log line or a header.
public enum EmailAddress {
    /// The normalised address, or `invalid_email`.
    public static func normalise(_ input: String) throws -> String {
        let address = input.trimmingASCIIWhitespace().lowercasedASCII()
        guard isValid(address) else {
            throw IdentityError(.invalidEmail, "'\(input.prefix(100))' is not an email address this hub accepts", field: "email")
        }
        return address
    }

    static func isValid(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard bytes.count <= 254, bytes.allSatisfy({ $0 < 0x80 }) else { return false }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return isValidLocal(Array(parts[0])) && isValidDomain(Array(parts[1]))
    }

    private static let atomSymbols = Set("!#$%&'*+-/=?^_`{|}~".utf8)

    private static func isValidLocal(_ local: [UInt8]) -> Bool {
        guard (1...64).contains(local.count) else { return false }
        let atoms = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return atoms.allSatisfy { atom in
            !atom.isEmpty && atom.allSatisfy { isAlphanumeric($0) || atomSymbols.contains($0) }
        }
    }

    private static func isValidDomain(_ domain: [UInt8]) -> Bool {
        guard (1...253).contains(domain.count) else { return false }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }

    /// Lowercases A–Z only, so the result equals SQL `lower()` on both engines.
    func lowercasedASCII() -> String {
        String(decoding: utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
