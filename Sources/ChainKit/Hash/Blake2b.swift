import CSodium

/// BLAKE2b (RFC 7693) through libsodium's `crypto_generichash`.
///
/// Substrate uses three fixed sizes, available as ``blake2b128(_:)``, ``blake2b256(_:)`` and
/// ``blake2b512(_:)``. The output length is a *parameter* of BLAKE2b, so a 16-byte digest is not the first
/// 16 bytes of a 32-byte one: Substrate's `blake2_128` hasher is outlen 16.
public enum Blake2b {
    /// The range of output lengths BLAKE2b allows, in bytes.
    public static let outputLengths: ClosedRange<Int> = 1...64
    /// The longest key BLAKE2b accepts, in bytes.
    public static let maximumKeyLength = 64

    /// Hashes `data` to `outputLength` bytes, keyed when `key` is not empty.
    ///
    /// libsodium documents 16 as its smallest output, but the function itself accepts 1...64 and computes
    /// plain BLAKE2b for any of them (the tests check short lengths against an independent implementation).
    /// - Parameters:
    ///   - data: the message.
    ///   - outputLength: the digest length, 1...64 bytes.
    ///   - key: an optional key of at most 64 bytes (MAC mode); empty for an unkeyed hash.
    /// - Throws: `out_of_range` for an output length or key length BLAKE2b does not allow.
    public static func hash(_ data: some Collection<UInt8>, outputLength: Int, key: [UInt8] = []) throws -> [UInt8] {
        guard outputLengths.contains(outputLength) else {
            throw ChainKitError(.outOfRange, "BLAKE2b output length must be 1...64 bytes, not \(outputLength)")
        }
        guard key.count <= maximumKeyLength else {
            throw ChainKitError(.outOfRange, "BLAKE2b key must be at most 64 bytes, not \(key.count)")
        }
        return digest(data, outputLength: outputLength, key: key)
    }

    /// The hash without argument checks, for the fixed sizes callers cannot get wrong.
    static func digest(_ data: some Collection<UInt8>, outputLength: Int, key: [UInt8] = []) -> [UInt8] {
        precondition(libsodiumReady, "sodium_init() failed")
        var out = [UInt8](repeating: 0, count: outputLength)
        let status =
            data.withContiguousStorageIfAvailable { input in
                generichash(into: &out, input: input, key: key)
            } ?? Array(data).withUnsafeBufferPointer { input in generichash(into: &out, input: input, key: key) }
        // Lengths were checked above; libsodium has no other failure for a one-shot hash.
        precondition(status == 0, "crypto_generichash failed with valid lengths")
        return out
    }

    private static func generichash(into out: inout [UInt8], input: UnsafeBufferPointer<UInt8>, key: [UInt8]) -> Int32 {
        let outputLength = out.count
        return out.withUnsafeMutableBufferPointer { output in
            key.withUnsafeBufferPointer { keyBytes in
                crypto_generichash(
                    output.baseAddress!,  // outputLength ≥ 1, so the buffer exists
                    outputLength,
                    input.baseAddress,
                    UInt64(input.count),
                    keyBytes.isEmpty ? nil : keyBytes.baseAddress,
                    keyBytes.count
                )
            }
        }
    }
}

/// BLAKE2b with a 16-byte output: Substrate's `blake2_128` (a digest of its own, not a truncation).
public func blake2b128(_ data: some Collection<UInt8>) -> [UInt8] { Blake2b.digest(data, outputLength: 16) }

/// BLAKE2b with a 32-byte output: Substrate's `blake2_256`, used for hashes of blocks, extrinsics and payloads.
public func blake2b256(_ data: some Collection<UInt8>) -> [UInt8] { Blake2b.digest(data, outputLength: 32) }

/// BLAKE2b with a 64-byte output: the SS58 checksum is its first two bytes.
public func blake2b512(_ data: some Collection<UInt8>) -> [UInt8] { Blake2b.digest(data, outputLength: 64) }

/// Whether `sodium_init()` succeeded. A global `let` is initialised lazily, once and atomically (through
/// `swift_once`), so every thread that reads it sees libsodium initialised exactly once, without a lock of our own.
/// `sodium_init()` returns 1 when another library already initialised it, which is also fine.
let libsodiumReady: Bool = sodium_init() >= 0
