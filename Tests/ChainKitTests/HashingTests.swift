import ChainKit
import Testing

@Suite("Hashing: blake2b, twox and storage keys")
struct HashingTests {
    @Test("hashing.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "hashing") == ["hashes", "storage_key"])
        #expect(try !SubstrateVector.names(in: "hashing", kind: "hashes").isEmpty)
        #expect(try !SubstrateVector.names(in: "hashing", kind: "storage_key").isEmpty)
    }

    @Test("blake2b-128/256/512 and twox64/128/256 match the vectors", arguments: try SubstrateVector.names(in: "hashing", kind: "hashes"))
    func digests(name: String) throws {
        let vector = try SubstrateVector(file: "hashing", named: name)
        let input = try vector.bytes("input")

        #expect(blake2b128(input) == (try vector.bytes("blake2b_128")))
        #expect(blake2b256(input) == (try vector.bytes("blake2b_256")))
        #expect(blake2b512(input) == (try vector.bytes("blake2b_512")))
        #expect(twox64(input) == (try vector.bytes("twox64")))
        #expect(twox128(input) == (try vector.bytes("twox128")))
        #expect(twox256(input) == (try vector.bytes("twox256")))

        // The storage hashers are the same functions.
        #expect(StorageHasher.blake2_128.hash(input) == (try vector.bytes("blake2b_128")))
        #expect(StorageHasher.blake2_256.hash(input) == (try vector.bytes("blake2b_256")))
        #expect(StorageHasher.twox128.hash(input) == (try vector.bytes("twox128")))
        #expect(StorageHasher.twox256.hash(input) == (try vector.bytes("twox256")))
        #expect(StorageHasher.identity.hash(input) == input)
    }

    @Test(
        "blake2_128 is its own digest, not blake2b-256 cut to 16 bytes (pitfall 5)",
        arguments: try SubstrateVector.names(in: "hashing", kind: "hashes")
    )
    func blake2b128IsNotTruncated(name: String) throws {
        let vector = try SubstrateVector(file: "hashing", named: name)
        let input = try vector.bytes("input")
        let truncated = try vector.bytes("blake2b_256_truncated_to_128")
        #expect(Array(blake2b256(input).prefix(16)) == truncated)
        #expect(blake2b128(input) != truncated)
    }

    @Test("twox lanes are XXH64 with seeds 0, 1, 2, 3, little-endian", arguments: try SubstrateVector.names(in: "hashing", kind: "hashes"))
    func twoxLanes(name: String) throws {
        let vector = try SubstrateVector(file: "hashing", named: name)
        let input = try vector.bytes("input")
        let lanes = try vector.bytes("twox256")
        for seed in 0..<4 {
            let lane = lanes[seed * 8..<seed * 8 + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(XXHash.xxh64(input, seed: UInt64(seed)) == lane)
        }
    }

    @Test("storage keys match the vectors", arguments: try SubstrateVector.names(in: "hashing", kind: "storage_key"))
    func storageKeys(name: String) throws {
        let vector = try SubstrateVector(file: "hashing", named: name)
        let pallet = try vector.string("pallet")
        let item = try vector.string("item")
        #expect(twox128(Array(pallet.utf8)) == (try vector.bytes("pallet_twox128")))
        #expect(twox128(Array(item.utf8)) == (try vector.bytes("item_twox128")))

        let hasherNames = try vector.strings("hashers")
        let keys = try vector.strings("keys_scale").map { try Hex.decode($0) }
        try #require(hasherNames.count == keys.count)
        let parts = try zip(hasherNames, keys).map { hasherName, key in
            (hasher: try #require(StorageHasher(name: hasherName), "unknown hasher \(hasherName)"), key: key)
        }
        let key = StorageKey(pallet: pallet, item: item, keys: parts)
        #expect(key.bytes == (try vector.bytes("storage_key")))
        #expect(key.description == (try vector.string("storage_key")))
        if parts.isEmpty {
            #expect(key.bytes == StorageKey.prefix(pallet: pallet, item: item))
        }
    }

    @Test("hasher names parse in metadata and snake-case spelling")
    func hasherNames() {
        #expect(StorageHasher(name: "Blake2_128Concat") == .blake2_128Concat)
        #expect(StorageHasher(name: "blake2_128_concat") == .blake2_128Concat)
        #expect(StorageHasher(name: "twox64_concat") == .twox64Concat)
        #expect(StorageHasher(name: "Identity") == .identity)
        #expect(StorageHasher(name: "blake2_128") == .blake2_128)
        #expect(StorageHasher(name: "sha256") == nil)
        for hasher in StorageHasher.allCases {
            #expect(StorageHasher(name: hasher.rawValue) == hasher)
        }
    }

    @Test("the concat hashers append the key after its hash")
    func concatHashers() {
        let key: [UInt8] = [7, 0, 0, 0]
        #expect(StorageHasher.blake2_128Concat.hash(key) == blake2b128(key) + key)
        #expect(StorageHasher.twox64Concat.hash(key) == twox64(key) + key)
    }

    // Values from Python's hashlib.blake2b(b"hubd", digest_size=n): an implementation independent of libsodium.
    @Test(
        "BLAKE2b output length is a parameter for every length 1...64",
        arguments: [
            (1, "0xdb"),
            (8, "0x1c2ed06fa8fea5b7"),
            (15, "0xcf2683d0cfc8f440588089a3a2bfd0"),
            (20, "0x29ffbaf2e435fbe0d29389d13437e7cbae3d6615"),
            (33, "0x4e3a7028d69c69292f81b7f10640f941173b321a502fae6b154f723b0300746881"),
        ]
    )
    func outputLengths(length: Int, expected: String) throws {
        #expect(try Blake2b.hash(Array("hubd".utf8), outputLength: length) == (try Hex.decode(expected)))
    }

    // The first and last entries of the BLAKE2 reference KAT (blake2b-kat.txt): key 00...3f, input empty and 00...fe.
    @Test("keyed BLAKE2b matches the reference known-answer tests")
    func keyed() throws {
        let key = (0..<64).map { UInt8($0) }
        #expect(
            try Blake2b.hash([UInt8](), outputLength: 64, key: key)
                == (try Hex.decode(
                    "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"
                ))
        )
        #expect(
            try Blake2b.hash((0..<255).map { UInt8($0) }, outputLength: 64, key: key)
                == (try Hex.decode(
                    "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e92484be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461"
                ))
        )
        #expect(try Blake2b.hash(Array("abc".utf8), outputLength: 16, key: Array("k".utf8)) == (try Hex.decode("6858b7b52110e28dc8e99bd7c341f05e")))
    }

    @Test("BLAKE2b refuses output lengths and keys it does not define", arguments: [0, 65, -1])
    func badOutputLength(length: Int) {
        #expect(throws: ChainKitError(.outOfRange, "")) { try Blake2b.hash([1, 2, 3], outputLength: length) }
    }

    @Test("BLAKE2b refuses a key over 64 bytes")
    func longKey() {
        #expect(throws: ChainKitError(.outOfRange, "")) {
            try Blake2b.hash([1, 2, 3], outputLength: 32, key: [UInt8](repeating: 1, count: 65))
        }
    }

    @Test("hashing a non-contiguous collection gives the same digest")
    func nonContiguousInput() {
        let bytes: [UInt8] = Array("System".utf8)
        let lazy = bytes.lazy.map { $0 }
        #expect(blake2b256(lazy) == blake2b256(bytes))
        #expect(twox128(lazy) == twox128(bytes))
        #expect(XXHash.xxh64(lazy, seed: 12345) == XXHash.xxh64(bytes, seed: 12345))
    }

    // From Python's xxhash.xxh64_intdigest(b"hubd", seed=12345).
    @Test("XXH64 takes any 64-bit seed")
    func arbitrarySeed() {
        #expect(XXHash.xxh64(Array("hubd".utf8), seed: 12345) == 0x6386_1b35_3df7_fa35)
    }
}
