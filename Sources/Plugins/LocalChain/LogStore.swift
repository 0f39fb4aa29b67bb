import ChainKit
import HubKernel

/// A log as `eth_getLogs` finds it: where it was emitted and what it says.
struct ChainLog: Sendable, Equatable {
    var blockNumber: UInt64
    /// Its position among all logs of its block.
    var logIndex: Int
    var transactionHash: String
    var transactionIndex: Int
    var address: EthereumAddress
    /// Up to four, as lowercase `0x` hex.
    var topics: [String]
    var data: [UInt8]
}

/// What `eth_getLogs` (and a log filter) asks for: a block range, any of some addresses (none:
/// any address), and per topic position any of some values (an empty list: anything).
struct LogFilter: Sendable, Equatable {
    var fromBlock: UInt64
    var toBlock: UInt64
    var addresses: [EthereumAddress] = []
    var topics: [[String]] = []

    /// Whether `log` matches: the same test the SQL query makes, for logs already in hand.
    func matches(_ log: ChainLog) -> Bool {
        guard (fromBlock...toBlock).contains(log.blockNumber) else { return false }
        if !addresses.isEmpty && !addresses.contains(log.address) { return false }
        for (position, wanted) in topics.enumerated() where !wanted.isEmpty {
            guard position < log.topics.count, wanted.contains(log.topics[position]) else { return false }
        }
        return true
    }
}

/// Every log of every sealed block, one row each (`localchain_logs`), indexed by address and
/// first topic so `eth_getLogs` reads only what can match.
enum LogStore {
    static func insert(_ receipts: [LocalChainReceipt], blockNumber: UInt64, chainID: UInt64, on connection: any SQLConnection) throws {
        var rows: [[SQLValue]] = []
        for (position, receipt) in receipts.enumerated() {
            for log in receipt.logs {
                let topics = (0..<4).map { $0 < log.topics.count ? SQLValue.text(Hex.encode(log.topics[$0])) : .null }
                rows.append(
                    [
                        .int(Int64(clamping: chainID)), .int(Int64(clamping: blockNumber)), .int(Int64(rows.count)),
                        .text(Hex.encode(receipt.transactionHash)), .int(Int64(position)), .text(log.address.description),
                    ] + topics + [.bytes(log.data)]
                )
            }
        }
        guard !rows.isEmpty else { return }
        try connection.insertMany(
            into: "localchain_logs",
            columns: [
                "chain_id", "block_number", "log_index", "transaction_hash", "transaction_index", "address", "topic0", "topic1", "topic2",
                "topic3", "data",
            ],
            rows: rows
        )
    }

    /// The logs matching `filter`, in block and log order, at most `limit`.
    static func logs(chainID: UInt64, filter: LogFilter, limit: Int, on connection: any SQLConnection) throws -> [ChainLog] {
        var sql: SQL =
            selectLogs + """
                 WHERE chain_id = \(Int64(clamping: chainID)) \
                AND block_number >= \(Int64(clamping: filter.fromBlock)) AND block_number <= \(Int64(clamping: filter.toBlock))
                """
        if !filter.addresses.isEmpty { sql += " AND address IN (\(list: filter.addresses.map(\.description)))" }
        let columns: [SQL] = ["topic0", "topic1", "topic2", "topic3"]
        for (position, wanted) in filter.topics.prefix(4).enumerated() where !wanted.isEmpty {
            sql += " AND " + columns[position] + " IN (\(list: wanted))"
        }
        sql += " ORDER BY block_number, log_index LIMIT \(limit)"
        return try connection.query(sql).map(log)
    }

    /// The logs of the transaction at `position` of block `blockNumber`, in order.
    static func logs(chainID: UInt64, blockNumber: UInt64, position: Int, on connection: any SQLConnection) throws -> [ChainLog] {
        try connection.query(
            selectLogs + " WHERE chain_id = \(Int64(clamping: chainID)) AND block_number = \(Int64(clamping: blockNumber))"
                + " AND transaction_index = \(Int64(position)) ORDER BY log_index"
        ).map(log)
    }

    private static let selectLogs: SQL =
        "SELECT block_number, log_index, transaction_hash, transaction_index, address, topic0, topic1, topic2, topic3, data FROM localchain_logs"

    private static func log(_ row: SQLRow) throws -> ChainLog {
        ChainLog(
            blockNumber: UInt64(try row.int("block_number")),
            logIndex: Int(try row.int("log_index")),
            transactionHash: try row.text("transaction_hash"),
            transactionIndex: Int(try row.int("transaction_index")),
            address: try EthereumAddress(try row.text("address")),
            topics: try ["topic0", "topic1", "topic2", "topic3"].compactMap { try row.optionalText($0) },
            data: try row.bytes("data")
        )
    }
}
