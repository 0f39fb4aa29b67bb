// ChainKit throughput, release build. Run through `make bench-chainkit`, which also runs the PyPI
// reference implementations on the same machine and prints the ratios.
// Prints one JSON object per line: {"operation": …, "unit": …, "value": …}.
import ChainKit
import Foundation

/// Runs `body` repeatedly for about `seconds` and returns calls per second.
func rate(seconds: Double = 1.5, _ body: () throws -> Void) rethrows -> Double {
    try body()  // warm-up
    var calls = 0
    let start = ContinuousClock.now
    var elapsed = 0.0
    repeat {
        for _ in 0..<16 { try body() }
        calls += 16
        let d = ContinuousClock.now - start
        elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    } while elapsed < seconds
    return Double(calls) / elapsed
}

func report(_ operation: String, _ unit: String, _ value: Double) {
    print(#"{"operation": "\#(operation)", "unit": "\#(unit)", "value": \#(String(format: "%.1f", value))}"#)
}

// `ChainKitBench secp256k1_recover` measures only the recovery: the local chain benchmark's
// ceiling, measured within its own run (scripts/bench-localchain.sh). `ChainKitBench
// sr25519_verify` measures only sr25519 verification (for a profiler).
let onlyRecovery = CommandLine.arguments.dropFirst().first == "secp256k1_recover"
let onlyVerify = CommandLine.arguments.dropFirst().first == "sr25519_verify"

// keccak-256 over 1 MiB.
let megabyte = [UInt8](repeating: 0xA5, count: 1 << 20)
if onlyVerify {
    let pair = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 7, count: 32))
    let message = [UInt8](repeating: 0x5A, count: 64)
    let signature = try Sr25519.sign(message, keyPair: pair)
    report("sr25519_verify", "ops/s", rate(seconds: 4) { _ = Sr25519.verify(signature, message: message, publicKey: pair.publicKey) })
    exit(0)
}
if !onlyRecovery { report("keccak256", "MB/s", rate { _ = Keccak256.hash(megabyte) }) }

// secp256k1 public key recovery, on one core.
let privateKey = [UInt8](repeating: 0x46, count: 32)
let hash = Keccak256.hash(Array("hubd".utf8))
let signature = try Secp256k1.sign(hash: hash, privateKey: privateKey)
report("secp256k1_recover", "ops/s", try rate { _ = try Secp256k1.recover(hash: hash, signature: signature) })
if onlyRecovery { exit(0) }
report("secp256k1_sign", "ops/s", try rate { _ = try Secp256k1.sign(hash: hash, privateKey: privateKey) })

// sr25519 sign and verify of a 64-byte message.
let pair = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 7, count: 32))
let message = [UInt8](repeating: 0x5A, count: 64)
let srSignature = try Sr25519.sign(message, keyPair: pair)
report("sr25519_sign", "ops/s", try rate { _ = try Sr25519.sign(message, keyPair: pair) })
report("sr25519_verify", "ops/s", rate { _ = Sr25519.verify(srSignature, message: message, publicKey: pair.publicKey) })

// RLP decode: a list of 1,000 signed EIP-1559 transactions (~110 KB).
let transaction = try EthereumTransaction(
    envelope: .dynamicFee,
    chainID: 1,
    nonce: 7,
    maxPriorityFeePerGas: UInt256(1_000_000_000),
    maxFeePerGas: UInt256(30_000_000_000),
    gasLimit: 21_000,
    to: EthereumAddress("0x3535353535353535353535353535353535353535"),
    value: UInt256(decimal: "1000000000000000000")
).signed(privateKey: privateKey)
let rlpBlock = RLP.encode(.list(Array(repeating: RLPItem.bytes(transaction.raw), count: 1000)))
let rlpRate = try rate { _ = try RLP.decode(rlpBlock) }
report("rlp_decode", "MB/s", rlpRate * Double(rlpBlock.count) / 1e6)

// SCALE decode: Vec<(Compact<u128>, String)> of 1,000 entries.
var encoder = SCALEEncoder()
encoder.encodeCompact(UInt64(1000))
for index in 0..<1000 {
    encoder.encodeCompact(UInt128(index) * 1_000_000_007)
    encoder.encode("account-\(index)")
}
let scaleBytes = encoder.bytes
let scaleRate = try rate {
    var decoder = SCALEDecoder(scaleBytes)
    let count: UInt64 = try decoder.decodeCompact()
    for _ in 0..<count {
        let _: UInt128 = try decoder.decodeCompact()
        let _: String = try decoder.decode()
    }
    try decoder.finish()
}
report("scale_decode", "MB/s", scaleRate * Double(scaleBytes.count) / 1e6)

// A local chain block's state root at 100,000 accounts, 200 of them changed by the block: the
// trie built again over every account (as each block did before the trie was kept), and the
// kept trie updated for the 200 (`IncrementalTrie`). Both give the same root (checked here).
let accountCount = 100_000
var stateEntries = (0..<accountCount).map { index in
    let address = Keccak256.hash(withUnsafeBytes(of: UInt64(index).bigEndian, Array.init)).suffix(20)
    let account = EthereumAccountState(address: try! EthereumAddress(bytes: Array(address)), nonce: UInt64(index % 7), balance: UInt256(index + 1))
    return (key: Keccak256.hash(account.address.bytes), value: account.encoded)
}
let keptTrie = IncrementalTrie(stateEntries)
let changed = stride(from: 0, to: accountCount, by: accountCount / 200).map { $0 }
var round = UInt64(0)
func changedValue(_ index: Int, _ round: UInt64) -> [UInt8] {
    RLP.encode(.list([.uint(round), .uint(UInt256(index)), .bytes(EthereumStateRoot.emptyStorageRoot), .bytes(EthereumStateRoot.emptyCodeHash)]))
}
let rebuildRate = rate {
    round += 1
    for index in changed { stateEntries[index].value = changedValue(index, round) }
    _ = MerklePatriciaTrie.root(stateEntries)
}
report("state_root_rebuild", "blocks/s", rebuildRate)
var updated = keptTrie
let incrementalRate = rate {
    round += 1
    for index in changed { updated.set(stateEntries[index].key, changedValue(index, round)) }
    _ = updated.rootHash
}
for index in changed { stateEntries[index].value = changedValue(index, round) }
guard updated.rootHash == MerklePatriciaTrie.root(stateEntries) else { fatalError("the kept trie's root is not the rebuilt one") }
report("state_root_incremental", "blocks/s", incrementalRate)

/// The process's resident memory in bytes (VmRSS of /proc/self/status).
func residentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

// The kept trie's memory: the resident growth of building one more trie over the same 100,000
// accounts (the entries themselves exist already).
let residentBefore = residentBytes()
let measuredTrie = IncrementalTrie(stateEntries)
report("state_trie_memory", "bytes/account", Double(residentBytes() - residentBefore) / Double(measuredTrie.count))
