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
// ceiling, measured within its own run (scripts/bench-localchain.sh).
let onlyRecovery = CommandLine.arguments.dropFirst().first == "secp256k1_recover"

// keccak-256 over 1 MiB.
let megabyte = [UInt8](repeating: 0xA5, count: 1 << 20)
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
