/// Bulk statements built from placeholders only (never from values).
///
/// On PostgreSQL every statement is a network round trip, so rows go many to a statement, in
/// chunks whose sizes are powers of two (a small, bounded set of shapes for the prepared-statement
/// cache). SQLite runs in-process, where a round trip costs nothing but compiling a statement with
/// thousands of `VALUES` rows costs seconds, so there one prepared single-row statement is reused.
extension SQLConnection {
    /// Parameters per statement. SQLite allows 32,766 and PostgreSQL 65,535.
    static var maxParameters: Int { 30_000 }

    /// Inserts `rows` into `table` with multi-row `INSERT … VALUES (…),(…)` statements.
    /// - Parameter suffix: appended to every statement, e.g. `ON CONFLICT (id) DO UPDATE SET …`.
    public func insertMany(into table: String, columns: [String], rows: [[SQLValue]], suffix: String = "") throws {
        guard !rows.isEmpty else { return }
        let width = columns.count
        let header = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        if dialect == .sqlite {
            // One statement text for every row: built once, prepared once, executed per row.
            let placeholders = (1...width).map { "$\($0)" }.joined(separator: ",")
            let sql = header + "(" + placeholders + ")" + (suffix.isEmpty ? "" : " " + suffix)
            for row in rows {
                precondition(row.count == width, "insertMany: row width \(row.count) != \(width) columns")
                try execute(sql, row)
            }
            return
        }
        for chunk in powerOfTwoChunks(rows.count, maxChunk: Self.maxParameters / width) {
            var sql = header
            var binds: [SQLValue] = []
            binds.reserveCapacity(chunk.count * width)
            var parameter = 1
            for (r, rowIndex) in chunk.enumerated() {
                let row = rows[rowIndex]
                precondition(row.count == width, "insertMany: row width \(row.count) != \(width) columns")
                if r > 0 { sql += "," }
                sql += "("
                for c in 0..<width {
                    if c > 0 { sql += "," }
                    sql += "$\(parameter)"
                    parameter += 1
                }
                sql += ")"
                binds.append(contentsOf: row)
            }
            if !suffix.isEmpty { sql += " " + suffix }
            // Nothing reads an insert's count: PostgreSQL sends the chunks on without waiting.
            try executeDeferred(sql, binds)
        }
    }

    /// Runs `<prefix> IN (…)<suffix>` for every chunk of `keys` (on SQLite, `<prefix> = key`
    /// once per key) and returns all rows. `prefix` ends with the column to match, e.g.
    /// `"SELECT id, amount FROM ledger_transfers WHERE id"`; `suffix` starts with a space.
    public func selectIn(_ prefix: SQL, keys: [some SQLBindable], suffix: SQL = "") throws -> [SQLRow] {
        try queries(selectInStatements(prefix, keys: keys, suffix: suffix)).flatMap { $0 }
    }

    /// Runs `<prefix> IN (…)<suffix>` for every chunk of `keys` (on SQLite, `<prefix> = key` once
    /// per key): a `DELETE` or `UPDATE` whose count nobody reads, so it is deferred and, on
    /// PostgreSQL, travels with the next statement that is read instead of costing round trips of
    /// its own. `prefix` ends with the column to match, e.g. `"DELETE FROM t WHERE id"`.
    public func executeIn(_ prefix: SQL, keys: [some SQLBindable], suffix: SQL = "") throws {
        for statement in selectInStatements(prefix, keys: keys, suffix: suffix) { try executeDeferred(statement) }
    }

    /// The statements of ``selectIn(_:keys:suffix:)``, for a caller that sends them along with
    /// other independent reads (``queries(_:)-(_)``): one per key on SQLite, where a prepared
    /// equality is fastest; `IN` lists in power-of-two chunks on PostgreSQL, so a few statement
    /// shapes serve every count.
    public func selectInStatements(_ prefix: SQL, keys: [some SQLBindable], suffix: SQL = "") -> [SQL] {
        if dialect == .sqlite { return keys.map { key in prefix + " = \(key)" + suffix } }
        return powerOfTwoChunks(keys.count, maxChunk: Self.maxParameters).map { chunk in
            prefix + " IN (\(list: Array(keys[chunk])))" + suffix
        }
    }
}

/// Splits `0..<count` into consecutive ranges whose sizes are powers of two no larger than
/// `maxChunk` (itself rounded down to a power of two): multi-row statements over them come in a
/// few shapes only, which the prepared-statement cache keeps.
public func powerOfTwoChunks(_ count: Int, maxChunk: Int) -> [Range<Int>] {
    var limit = 1
    while limit * 2 <= max(1, maxChunk) { limit *= 2 }
    var chunks: [Range<Int>] = []
    var start = 0
    while start < count {
        var size = limit
        while size > count - start { size /= 2 }
        chunks.append(start..<(start + size))
        start += size
    }
    return chunks
}
