import ChainKit
import EVMKit
import Foundation

/// Runs Ethereum `GeneralStateTests` files: each Cancun post entry picks one (data, gas, value)
/// combination of the transaction; a valid one must give the expected state root and logs hash, an
/// invalid one (`expectException`) must be refused.
struct StateTestRunner {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Outcome {
        var passed = 0
        var failures: [String] = []
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ethereum-tests/GeneralStateTests")

    /// Every `.json` below `folder`.
    static func files(in folder: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "json" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func run(file: URL) throws -> Outcome {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
        guard let tests = object as? [String: [String: Any]] else { throw Failure(description: "\(file.lastPathComponent): not a state test") }
        var outcome = Outcome()
        for (name, test) in tests.sorted(by: { $0.key < $1.key }) {
            let posts = (test["post"] as? [String: Any])?["Cancun"] as? [[String: Any]] ?? []
            for (index, post) in posts.enumerated() {
                do {
                    try runVector(test, post: post)
                    outcome.passed += 1
                } catch {
                    outcome.failures.append("\(name)[\(index)]: \(error)")
                }
            }
        }
        return outcome
    }

    static func runVector(_ test: [String: Any], post: [String: Any]) throws {
        let env = test["env"] as? [String: Any] ?? [:]
        var hashes: [UInt64: U256] = [:]
        let number = try uint64(env["currentNumber"])
        if number > 0, let previous = env["previousHash"] { hashes[number - 1] = try word(previous) }
        let block = BlockEnvironment(
            number: number,
            timestamp: try uint64(env["currentTimestamp"]),
            coinbase: try Address(hex: string(env["currentCoinbase"])),
            gasLimit: try uint64(env["currentGasLimit"]),
            baseFee: try word(env["currentBaseFee"] ?? "0x0"),
            prevRandao: try word(env["currentRandom"] ?? "0x0"),
            excessBlobGas: try uint64(env["currentExcessBlobGas"] ?? "0x0"),
            blockHashes: hashes
        )
        var state = try self.state(test["pre"])
        let transaction: Transaction
        do {
            transaction = try self.transaction(test["transaction"] as? [String: Any] ?? [:], indexes: post["indexes"] as? [String: Int] ?? [:])
        } catch {
            // A field no transaction can carry (a value past 2^256) is an invalid transaction too.
            if post["expectException"] != nil { return }
            throw error
        }
        let executor = TransactionExecutor(block: block)
        var logs: [Log] = []
        do {
            let receipt = try executor.execute(transaction, on: &state)
            logs = receipt.logs
            if post["expectException"] != nil { throw Failure(description: "accepted; expected \(post["expectException"]!)") }
        } catch let error as EVMError {
            if post["expectException"] == nil { throw Failure(description: "refused: \(error)") }
        }
        let root = state.stateRoot
        let expectedRoot = try word(post["hash"])
        if root != expectedRoot { throw Failure(description: "state root \(root.hexString), expected \(expectedRoot.hexString)") }
        let logsHash = Log.hash(logs)
        let expectedLogs = try word(post["logs"])
        if logsHash != expectedLogs { throw Failure(description: "logs hash \(logsHash.hexString), expected \(expectedLogs.hexString)") }
    }

    static func transaction(_ fields: [String: Any], indexes: [String: Int]) throws -> Transaction {
        let dataIndex = indexes["data"] ?? 0, gasIndex = indexes["gas"] ?? 0, valueIndex = indexes["value"] ?? 0
        let data = try Hex.decode(string((fields["data"] as? [String])?[dataIndex]))
        let gasLimit = try uint64((fields["gasLimit"] as? [String])?[gasIndex])
        let value = try word((fields["value"] as? [String])?[valueIndex])
        let sender: Address
        if let key = fields["secretKey"] as? String {
            sender = Address(try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: Hex.decode(key))))
        } else {
            sender = try Address(hex: string(fields["sender"]))
        }
        let accessLists = fields["accessLists"] as? [Any]
        let accessListJSON = accessLists.flatMap { dataIndex < $0.count ? $0[dataIndex] as? [[String: Any]] : nil }
        let accessList = try (accessListJSON ?? []).map { entry in
            Transaction.AccessListEntry(
                address: try Address(hex: string(entry["address"])),
                storageKeys: try (entry["storageKeys"] as? [String] ?? []).map { try U256(hex: $0) }
            )
        }
        let kind: Transaction.Kind =
            fields["blobVersionedHashes"] != nil
            ? .blob
            : fields["maxFeePerGas"] != nil ? .dynamicFee : accessListJSON != nil ? .accessList : .legacy
        let toText = fields["to"] as? String ?? ""
        return Transaction(
            kind: kind,
            sender: sender,
            to: toText.isEmpty ? nil : try Address(hex: toText),
            nonce: try uint64(fields["nonce"]),
            gasLimit: gasLimit,
            value: value,
            data: data,
            gasPrice: try word(fields["gasPrice"] ?? "0x0"),
            maxFeePerGas: try word(fields["maxFeePerGas"] ?? "0x0"),
            maxPriorityFeePerGas: try word(fields["maxPriorityFeePerGas"] ?? "0x0"),
            accessList: accessList,
            maxFeePerBlobGas: try word(fields["maxFeePerBlobGas"] ?? "0x0"),
            blobVersionedHashes: try (fields["blobVersionedHashes"] as? [String] ?? []).map { try U256(hex: $0) }
        )
    }

    static func state(_ value: Any?) throws -> InMemoryState {
        guard let accounts = value as? [String: [String: Any]] else { throw Failure(description: "no pre state") }
        var state = InMemoryState()
        for (addressText, fields) in accounts {
            let address = try Address(hex: addressText)
            state.accounts[address] = Account(
                nonce: try uint64(fields["nonce"] ?? "0x0"),
                balance: try word(fields["balance"] ?? "0x0"),
                code: try Hex.decode(string(fields["code"] ?? "0x"))
            )
            var slots: [U256: U256] = [:]
            for (slot, value) in fields["storage"] as? [String: String] ?? [:] where !(try U256(hex: value)).isZero {
                slots[try U256(hex: slot)] = try U256(hex: value)
            }
            if !slots.isEmpty { state.storage[address] = slots }
        }
        return state
    }

    static func string(_ value: Any?) throws -> String {
        guard let text = value as? String else { throw Failure(description: "expected a string, got \(String(describing: value))") }
        return text
    }

    static func word(_ value: Any?) throws -> U256 { try U256(hex: string(value)) }

    static func uint64(_ value: Any?) throws -> UInt64 {
        guard let number = try word(value).uint64 else { throw Failure(description: "\(String(describing: value)) exceeds 64 bits") }
        return number
    }
}
