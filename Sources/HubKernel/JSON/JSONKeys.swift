/// The API's member names are `snake_case`; Swift's are `camelCase`. These convert between the
/// two the way the API has always spelled them (acronyms as words: `rpcURL` ↔ `rpc_url`), on bytes
/// and without allocating when there is nothing to convert.
enum JSONKeys {
    /// `debitAccountId` → `debit_account_id`, `rpcURL` → `rpc_url`, `v2Name` → `v2_name`.
    static func snakeCase(_ name: String) -> String {
        // Most keys are one lower-case word: look before copying the bytes.
        guard name.utf8.contains(where: isUpper) else { return name }
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count + 4)
        appendSnakeCase(name, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `name` in `snake_case` to `out`, which may already hold other text: how the encoder
    /// writes a member's name straight into its document.
    static func appendSnakeCase(_ name: String, to out: inout [UInt8]) {
        var name = name
        name.withUTF8 { appendSnakeCase($0, to: &out) }
    }

    private static func appendSnakeCase(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let firstUpper = utf8.firstIndex(where: isUpper) else {
            out.append(contentsOf: utf8)
            return
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<firstUpper]))
        for index in firstUpper..<utf8.count {
            let byte = utf8[index]
            guard isUpper(byte) else {
                out.append(byte)
                continue
            }
            let previous = index > 0 ? utf8[index - 1] : nil
            let next = index + 1 < utf8.count ? utf8[index + 1] : nil
            // A word starts at an upper-case letter after a lower-case letter or digit, and at the
            // last capital of an acronym that a lower-case word follows (`URLPath`).
            let startsWord = previous.map { isLower($0) || isDigit($0) || (isUpper($0) && next.map(isLower) == true) } ?? false
            if startsWord { out.append(UInt8(ascii: "_")) }
            out.append(byte + 0x20)
        }
    }

    /// Whether the member `jsonName` is the Swift key `swiftName`: the same text, or its
    /// `snake_case` spelling (so both `debit_account_id` and `debitAccountId` find `debitAccountId`).
    static func matches(_ jsonName: String, _ swiftName: String) -> Bool {
        if jsonName == swiftName { return true }
        var json = jsonName.utf8.makeIterator()
        var swift = swiftName.utf8.makeIterator()
        var sawUnderscore = false
        var previousSwift: UInt8?
        var pendingSwift: UInt8? = swift.next()
        while let s = pendingSwift {
            let next = swift.next()
            if isUpper(s), let previousSwift {
                let startsWord = isLower(previousSwift) || isDigit(previousSwift) || (isUpper(previousSwift) && next.map(isLower) == true)
                if startsWord {
                    guard json.next() == UInt8(ascii: "_") else { return false }
                    sawUnderscore = true
                }
            }
            guard json.next() == (isUpper(s) ? s + 0x20 : s) else { return false }
            previousSwift = s
            pendingSwift = next
        }
        return json.next() == nil && (sawUnderscore || swiftName.utf8.contains(where: isUpper))
    }

    /// `debit_account_id` → `debitAccountId`: what a member name becomes as a Swift key, for
    /// types that enumerate `allKeys`.
    static func camelCase(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "_")) else { return name }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        // Leading and trailing underscores are kept, as they are not word breaks.
        let leading = parts.prefix { $0.isEmpty }.count
        let trailing = parts.reversed().prefix { $0.isEmpty }.count
        guard leading < parts.count else { return name }
        let words = parts[leading..<(parts.count - trailing)]
        var result = String(repeating: "_", count: leading) + words.first!.lowercased()
        for word in words.dropFirst() { result += word.prefix(1).uppercased() + word.dropFirst().lowercased() }
        return result + String(repeating: "_", count: trailing)
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
