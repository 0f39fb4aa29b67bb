import Synchronization

/// A connection that runs only statements whose tables all start with one prefix: how the kernel
/// holds a rail to its own tables (DESIGN §3.5) instead of trusting it to.
///
/// The check reads the statement's text (values are bound separately, so only the code's own SQL
/// is read): every name after `FROM`, `JOIN`, `INTO`, `UPDATE` or `TABLE` must start with the
/// prefix or be a common table expression the statement defines. Texts that passed are
/// remembered, so a statement is parsed once per process.
final class PrefixedConnection: SQLConnection, TransactionStateHolding {
    private let base: any SQLConnection
    private let prefix: String
    /// Tables outside the prefix this connection may still name (a plugin migration's declared
    /// ``Migration/foreignTables``); empty for units of work.
    private let alsoAllowed: Set<String>
    private static let approved = Mutex<Set<String>>([])

    init(_ base: any SQLConnection, prefix: String, alsoAllowed: Set<String> = []) {
        self.base = base
        self.prefix = prefix
        self.alsoAllowed = alsoAllowed
    }

    var dialect: SQLDialect { base.dialect }

    /// The base connection's: a rail's unit shares its transaction's counters and events.
    var transactionState: TransactionState { (base as? any TransactionStateHolding)?.transactionState ?? TransactionState() }

    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        try check(sql)
        return try base.execute(sql, binds)
    }

    func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws {
        try check(sql)
        try base.executeDeferred(sql, binds)
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        try check(sql)
        return try base.query(sql, binds)
    }

    func queries(_ statements: [(sql: String, binds: [SQLValue])]) throws -> [[SQLRow]] {
        for statement in statements { try check(statement.sql) }
        return try base.queries(statements)
    }

    func executeScript(_ sql: String) throws {
        try check(sql)
        try base.executeScript(sql)
    }

    private func check(_ sql: String) throws {
        let key = ([prefix] + alsoAllowed.sorted() + [sql]).joined(separator: "\u{0}")
        if Self.approved.withLock({ $0.contains(key) }) { return }
        if let foreign = SQLTableNames.tables(in: sql).first(where: { !$0.hasPrefix(prefix) && !alsoAllowed.contains($0) }) {
            throw UnitError.foreignTable(foreign, prefix: prefix, statement: sql)
        }
        Self.approved.withLock { approved in
            // Statement texts are a small fixed set per program; the bound only guards a bug.
            if approved.count > 50_000 { approved.removeAll() }
            approved.insert(key)
        }
    }
}

/// The tables a statement names, read from its text.
enum SQLTableNames {
    private static let tableKeywords: Set<String> = ["from", "join", "into", "update", "table", "truncate"]
    /// Schema objects whose own names are held to the prefix as tables are: a rail creates or
    /// drops only its own indexes, views, sequences and triggers.
    private static let objectKeywords: Set<String> = ["index", "view", "sequence", "trigger"]
    private static let skippable: Set<String> = ["only", "if", "not", "exists", "lateral", "concurrently", "table"]

    static func tables(in sql: String) -> [String] {
        let tokens = tokenize(sql)
        var ctes: Set<String> = []
        // `WITH name AS (` and `, name AS (` define names the statement may then select from.
        for index in tokens.indices.dropLast(2) where tokens[index + 1] == "as" && tokens[index + 2] == "(" {
            if index > 0, tokens[index - 1] == "with" || tokens[index - 1] == "," || tokens[index - 1] == "recursive" {
                ctes.insert(tokens[index])
            }
        }
        var tables: [String] = []
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            if objectKeywords.contains(tokens[index]) {
                tables += objectNames(after: index, in: tokens)
                continue
            }
            guard tableKeywords.contains(tokens[index]) else { continue }
            // `ON CONFLICT … DO UPDATE SET` and `FOR UPDATE [SKIP LOCKED]` name no table.
            if tokens[index] == "update", index > 0, tokens[index - 1] == "do" || tokens[index - 1] == "for" { continue }
            var next = index + 1
            while next < tokens.count, skippable.contains(tokens[next]) { next += 1 }
            // A subquery, a placeholder (`IS DISTINCT FROM $1`) or a literal is not a table.
            guard next < tokens.count, let first = tokens[next].utf8.first, isIdentifierStart(first) else { continue }
            let name = tokens[next]
            if !ctes.contains(name) { tables.append(name) }
            if tokens[index] == "from" {
                // `FROM a, b x, c`: the names after top-level commas, up to the next clause.
                var depth = 0
                var scan = next + 1
                while scan < tokens.count {
                    let token = tokens[scan]
                    if token == "(" {
                        depth += 1
                    } else if token == ")" {
                        if depth == 0 { break }
                        depth -= 1
                    } else if depth == 0 && (clauseKeywords.contains(token) || token == ";") {
                        break
                    } else if depth == 0 && token == ",", scan + 1 < tokens.count,
                        let first = tokens[scan + 1].utf8.first, isIdentifierStart(first), !ctes.contains(tokens[scan + 1])
                    {
                        tables.append(tokens[scan + 1])
                    }
                    scan += 1
                }
            }
        }
        return tables
    }

    /// `INDEX [IF NOT EXISTS] name ON [ONLY] table` (and a trigger's `… ON table`): the object's
    /// name, and the table it is made on.
    private static func objectNames(after keyword: Int, in tokens: [String]) -> [String] {
        var names: [String] = []
        var next = keyword + 1
        while next < tokens.count, skippable.contains(tokens[next]) { next += 1 }
        guard next < tokens.count else { return names }
        // PostgreSQL's `CREATE INDEX ON table` names no index.
        if tokens[next] != "on", isIdentifier(tokens[next]) { names.append(tokens[next]) }
        guard tokens[keyword] == "index" || tokens[keyword] == "trigger" else { return names }
        var scan = next
        while scan < tokens.count, tokens[scan] != "on", tokens[scan] != ";" { scan += 1 }
        guard scan < tokens.count, tokens[scan] == "on" else { return names }
        scan += 1
        while scan < tokens.count, skippable.contains(tokens[scan]) { scan += 1 }
        if scan < tokens.count, isIdentifier(tokens[scan]) { names.append(tokens[scan]) }
        return names
    }

    private static func isIdentifier(_ token: String) -> Bool { token.utf8.first.map(isIdentifierStart) ?? false }

    private static let clauseKeywords: Set<String> = [
        "where", "join", "left", "right", "inner", "cross", "full", "on", "group", "order", "limit", "having", "union",
        "returning", "for", "set", "values", "window", "offset", "except", "intersect",
    ]

    /// Lower-cased words (identifiers and keywords), single punctuation characters and
    /// placeholders; string literals and comments are dropped.
    static func tokenize(_ sql: String) -> [String] {
        var tokens: [String] = []
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index += 1
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "'") {
                        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if isIdentifierStart(byte) || byte == UInt8(ascii: "$") || isDigit(byte) || byte == UInt8(ascii: "\"") {
                let start = index
                let quoted = byte == UInt8(ascii: "\"")
                index += 1
                while index < bytes.count {
                    let c = bytes[index]
                    if quoted {
                        index += 1
                        if c == UInt8(ascii: "\"") { break }
                    } else if isIdentifierStart(c) || isDigit(c) || c == UInt8(ascii: ".") {
                        index += 1
                    } else {
                        break
                    }
                }
                var word = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
                if quoted { word = String(word.dropFirst().dropLast()) }
                tokens.append(word)
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                index += 1
            } else {
                tokens.append(String(UnicodeScalar(byte)))
                index += 1
            }
        }
        return tokens
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || byte == 0x5F || byte >= 0x80
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
