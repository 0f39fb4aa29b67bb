import ArgumentParser
import ChainKit
import EVMKit
import Foundation

/// `hubd evm …`: tools around the EVM engine.
struct EVMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evm",
        abstract: "The EVM engine (EVMKit): conformance and differential runs.",
        subcommands: [EVMBlocktest.self, EVMRun.self]
    )
}

/// Runs Ethereum `BlockchainTests` files through EVMKit, as geth's `evm blocktest` and revm's
/// `revme` do: each case's blocks are applied to its `pre` state and the result compared with
/// `postState`; blocks the fixture marks invalid must be rejected.
struct EVMBlocktest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blocktest",
        abstract: "Run BlockchainTests JSON files (Cancun cases) and compare with their postState.",
        discussion: """
            Prints one JSON line per case ({"name","file","pass","error"}), then a summary per
            category (the folder below GeneralStateTests/) and in total. Cases of other networks are
            skipped and counted. Exits 1 if any case fails.
            """
    )

    @Argument(help: "Fixture files or folders (folders are searched for *.json).")
    var paths: [String]

    @Flag(help: "Print only failing cases and the summary.")
    var quiet = false

    func run() throws {
        let files = try Self.jsonFiles(paths)
        // Calls nest 1024 deep; give the run a stack to match (the main thread's 8 MB is not
        // enough for a debug build's frames).
        let outcome = OutcomeBox()
        let thread = Thread { [quiet] in
            outcome.set(BlocktestRunner(quiet: quiet).run(files: files))
        }
        thread.stackSize = 1 << 30
        thread.start()
        outcome.wait()
        if !outcome.passed { throw ExitCode(1) }
    }

    static func jsonFiles(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("no such file or folder: \(path)")
            }
            if isDirectory.boolValue {
                let enumerator = manager.enumerator(atPath: path)
                while let relative = enumerator?.nextObject() as? String {
                    if relative.hasSuffix(".json") { files.append((path as NSString).appendingPathComponent(relative)) }
                }
            } else {
                files.append(path)
            }
        }
        return files.sorted()
    }
}

/// The runner's result handed from its thread back to the command.
private final class OutcomeBox: @unchecked Sendable {
    // Written once by the runner thread before `done` is signalled; read after waiting on it.
    private var value = false
    private let done = DispatchSemaphore(value: 0)

    func set(_ passed: Bool) {
        value = passed
        done.signal()
    }

    func wait() { done.wait() }
    var passed: Bool { value }
}

/// Runs the cases and prints the report.
struct BlocktestRunner {
    var quiet: Bool

    struct Tally {
        var passed = 0
        var failed = 0
        var skipped = 0
    }

    struct CaseFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func run(files: [String]) -> Bool {
        var categories: [String: Tally] = [:]
        var total = Tally()
        var unsupportedPrecompileCases = 0
        for file in files {
            let category = Self.category(of: file)
            let cases: [String: Any]
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                    throw CaseFailure("not a JSON object")
                }
                cases = object
            } catch {
                report(name: "(file)", file: file, pass: false, error: "cannot read: \(error)")
                categories[category, default: Tally()].failed += 1
                total.failed += 1
                continue
            }
            for name in cases.keys.sorted() {
                guard let testCase = cases[name] as? [String: Any] else { continue }
                guard testCase["network"] as? String == "Cancun" else {
                    categories[category, default: Tally()].skipped += 1
                    total.skipped += 1
                    continue
                }
                var unsupported = Set<UInt8>()
                var failure: String?
                do {
                    try runCase(testCase, unsupported: &unsupported)
                } catch {
                    failure = "\(error)"
                    if !unsupported.isEmpty {
                        let list = unsupported.sorted().map { "0x0\(String($0, radix: 16))" }.joined(separator: ", ")
                        failure! += " (reached unsupported precompile \(list))"
                        unsupportedPrecompileCases += 1
                    }
                }
                if failure == nil {
                    categories[category, default: Tally()].passed += 1
                    total.passed += 1
                } else {
                    categories[category, default: Tally()].failed += 1
                    total.failed += 1
                }
                if failure != nil || !quiet { report(name: name, file: file, pass: failure == nil, error: failure) }
            }
        }
        for (category, tally) in categories.sorted(by: { $0.key < $1.key }) {
            emit("summary \(category): \(tally.passed) passed, \(tally.failed) failed, \(tally.skipped) skipped")
        }
        emit(
            "summary total: \(total.passed) passed, \(total.failed) failed, \(total.skipped) skipped (not Cancun); "
                + "\(unsupportedPrecompileCases) failing cases reached an unsupported precompile"
        )
        return total.failed == 0
    }

    func report(name: String, file: String, pass: Bool, error: String?) {
        let line: [String: Any] = ["name": name, "file": file, "pass": pass, "error": error.map { $0 as Any } ?? NSNull()]
        if let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]) {
            emit(String(decoding: data, as: UTF8.self))
        }
    }

    /// Writes a line unbuffered, so a slow case shows where the run is.
    func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The folder below `GeneralStateTests/` (or the file's folder).
    static func category(of file: String) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        if let range = folder.range(of: "GeneralStateTests/") { return String(folder[range.upperBound...]) }
        return (folder as NSString).lastPathComponent
    }

    // MARK: One case

    func runCase(_ testCase: [String: Any], unsupported: inout Set<UInt8>) throws {
        var state = try Self.state(testCase["pre"])
        let expected = try Self.state(testCase["postState"])
        guard let blocks = testCase["blocks"] as? [[String: Any]] else { throw CaseFailure("no blocks") }
        var hashes: [UInt64: U256] = [:]
        if let genesis = testCase["genesisBlockHeader"] as? [String: Any] {
            hashes[try Self.uint64(genesis["number"])] = try Self.word(genesis["hash"])
        }
        for block in blocks {
            let expectException = block["expectException"] as? String
            let decoded = (block["rlp_decoded"] as? [String: Any]) ?? block
            guard let header = decoded["blockHeader"] as? [String: Any] else { throw CaseFailure("a block has no header") }
            let environment = BlockEnvironment(
                number: try Self.uint64(header["number"]),
                timestamp: try Self.uint64(header["timestamp"]),
                coinbase: try Address(hex: Self.string(header["coinbase"])),
                gasLimit: try Self.uint64(header["gasLimit"]),
                baseFee: try Self.word(header["baseFeePerGas"]),
                prevRandao: try Self.word(header["mixHash"]),
                chainID: U256(1),
                excessBlobGas: try Self.uint64(header["excessBlobGas"] ?? "0x0"),
                blockHashes: hashes
            )
            let transactions = try Self.transactions(decoded, block: block)
            let executor = TransactionExecutor(block: environment)

            var working = state
            var rejection: String?
            executor.applyBeaconRoot(try Self.word(header["parentBeaconBlockRoot"] ?? "0x0"), on: &working)
            var gasUsed: UInt64 = 0
            for transaction in transactions {
                do {
                    let receipt = try executor.execute(transaction, on: &working, blockGasUsed: gasUsed)
                    gasUsed += receipt.gasUsed
                    unsupported.formUnion(receipt.unsupportedPrecompiles)
                } catch {
                    rejection = "\(error)"
                    break
                }
            }
            if rejection == nil, let expectedGas = header["gasUsed"], try Self.uint64(expectedGas) != gasUsed {
                rejection = "block gas used \(gasUsed), header says \(try Self.uint64(expectedGas))"
            }
            switch (expectException, rejection) {
            case (nil, nil):
                state = working
                if let hash = header["hash"] { hashes[environment.number] = try Self.word(hash) }
            case (nil, let why?):
                throw CaseFailure("valid block rejected: \(why)")
            case (let exception?, nil):
                throw CaseFailure("invalid block accepted (expected \(exception))")
            case (_, _?):
                break  // rejected as the fixture expects; the state stays as it was
            }
        }
        if let difference = Self.difference(state, expected) { throw CaseFailure("post state differs: \(difference)") }
    }

    static func transactions(_ decoded: [String: Any], block: [String: Any]) throws -> [Transaction] {
        let list = decoded["transactions"] as? [[String: Any]] ?? []
        let sequence = block["transactionSequence"] as? [[String: Any]] ?? []
        return try list.enumerated().map { index, fields in
            var senderHex = fields["sender"] as? String
            if senderHex == nil, index < sequence.count, let raw = sequence[index]["rawBytes"] as? String {
                // Invalid blocks list no sender: recover it from the signed bytes.
                let signed = try SignedEthereumTransaction.decode(Hex.decode(raw))
                senderHex = try signed.sender().description
            }
            guard let senderHex else { throw CaseFailure("transaction \(index) has no sender") }
            let kindByte = try uint64(fields["type"] ?? "0x0")
            guard let kind = Transaction.Kind(rawValue: UInt8(truncatingIfNeeded: kindByte)), kindByte < 4 else {
                throw CaseFailure("transaction type \(kindByte) is not supported")
            }
            let toText = fields["to"] as? String ?? ""
            let accessList = try (fields["accessList"] as? [[String: Any]] ?? []).map { entry in
                Transaction.AccessListEntry(
                    address: try Address(hex: string(entry["address"])),
                    storageKeys: try (entry["storageKeys"] as? [String] ?? []).map { try U256(hex: $0) }
                )
            }
            return Transaction(
                kind: kind,
                sender: try Address(hex: senderHex),
                to: toText.isEmpty ? nil : try Address(hex: toText),
                nonce: try uint64(fields["nonce"]),
                gasLimit: try uint64(fields["gasLimit"]),
                value: try word(fields["value"]),
                data: try Hex.decode(string(fields["data"])),
                gasPrice: try word(fields["gasPrice"] ?? "0x0"),
                maxFeePerGas: try word(fields["maxFeePerGas"] ?? "0x0"),
                maxPriorityFeePerGas: try word(fields["maxPriorityFeePerGas"] ?? "0x0"),
                accessList: accessList,
                maxFeePerBlobGas: try word(fields["maxFeePerBlobGas"] ?? "0x0"),
                blobVersionedHashes: try (fields["blobVersionedHashes"] as? [String] ?? []).map { try U256(hex: $0) }
            )
        }
    }

    // MARK: State

    static func state(_ value: Any?) throws -> InMemoryState {
        guard let accounts = value as? [String: Any] else { throw CaseFailure("missing pre or postState") }
        var state = InMemoryState()
        for (addressText, fields) in accounts {
            guard let fields = fields as? [String: Any] else { continue }
            let address = try Address(hex: addressText)
            let nonce = try uint64(fields["nonce"] ?? "0x0")
            state.accounts[address] = Account(
                nonce: nonce,
                balance: try word(fields["balance"] ?? "0x0"),
                code: try Hex.decode(string(fields["code"] ?? "0x"))
            )
            var slots: [U256: U256] = [:]
            for (slot, value) in fields["storage"] as? [String: String] ?? [:] {
                let word = try U256(hex: value)
                if !word.isZero { slots[try U256(hex: slot)] = word }
            }
            if !slots.isEmpty { state.storage[address] = slots }
        }
        return state
    }

    /// The first difference between two states, described, or `nil` when equal.
    static func difference(_ actual: InMemoryState, _ expected: InMemoryState) -> String? {
        for address in Set(actual.accounts.keys).union(expected.accounts.keys).sorted() {
            guard let got = actual.accounts[address] else { return "account \(address) missing" }
            guard let want = expected.accounts[address] else {
                return "unexpected account \(address) (nonce \(got.nonce), balance \(got.balance))"
            }
            if got.balance != want.balance { return "\(address) balance \(got.balance), expected \(want.balance)" }
            if got.nonce != want.nonce { return "\(address) nonce \(got.nonce), expected \(want.nonce)" }
            if got.code != want.code { return "\(address) code differs (\(got.code.count) bytes, expected \(want.code.count))" }
            let gotStorage = actual.storage[address] ?? [:], wantStorage = expected.storage[address] ?? [:]
            for slot in Set(gotStorage.keys).union(wantStorage.keys).sorted() where gotStorage[slot] != wantStorage[slot] {
                return
                    "\(address) storage[\(slot.hexString)] = \((gotStorage[slot] ?? .zero).hexString), expected \((wantStorage[slot] ?? .zero).hexString)"
            }
        }
        return nil
    }

    // MARK: Fields

    static func string(_ value: Any?) throws -> String {
        guard let text = value as? String else { throw CaseFailure("expected a string, got \(String(describing: value))") }
        return text
    }

    static func word(_ value: Any?) throws -> U256 { try U256(hex: string(value)) }

    static func uint64(_ value: Any?) throws -> UInt64 {
        guard let number = try word(value).uint64 else { throw CaseFailure("\(String(describing: value)) exceeds 64 bits") }
        return number
    }
}
