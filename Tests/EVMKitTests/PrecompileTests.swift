import ChainKit
import Testing

@testable import EVMKit

@Suite struct PrecompileTests {
    func run(_ number: UInt8, _ input: [UInt8], gas: Int = 1_000_000) throws -> [UInt8] {
        let precompile = try #require(Precompile(rawValue: number))
        guard case .success(let output, _) = precompile.run(input: input, gas: gas) else {
            Issue.record("precompile \(number) failed")
            return []
        }
        return output
    }

    @Test("sha256 and ripemd160 of \"abc\"")
    func hashes() throws {
        let abc = Array("abc".utf8)
        #expect(Hex.encode(try run(2, abc)) == "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(try run(3, abc)) == "0x0000000000000000000000008eb208f7e05d987a9b044a8e98c6b087f15a0bfc")
        #expect(Hex.encode(RIPEMD160.hash([])) == "0x9c1185a5c5e9fc54612808977ee8f548b2258d31")
    }

    @Test("blake2f with 12 rounds over \"abc\" is BLAKE2b-512 (EIP-152 vector 5)")
    func blake2f() throws {
        // rounds 12 ‖ h (BLAKE2b-512's IV, parameter block folded into h0) ‖ m ("abc", zero-padded) ‖ t = 3 ‖ final.
        var h = Blake2bCompression.iv
        h[0] ^= 0x0101_0040
        var input: [UInt8] = [0, 0, 0, 12]
        for word in h { input += withUnsafeBytes(of: word.littleEndian, Array.init) }
        input += Array("abc".utf8) + [UInt8](repeating: 0, count: 125)
        input += withUnsafeBytes(of: UInt64(3).littleEndian, Array.init) + [UInt8](repeating: 0, count: 8) + [1]
        #expect(input.count == 213)
        let output = try run(9, input)
        #expect(output == (try Blake2b.hash(Array("abc".utf8), outputLength: 64)))
    }

    @Test("modexp: 3^5 mod 7, and the EIP-2565 minimum price")
    func modexp() throws {
        let input = U256(1).bigEndianBytes + U256(1).bigEndianBytes + U256(1).bigEndianBytes + [3, 5, 7]
        #expect(try run(5, input) == [5])
        #expect(ModExp.gasCost(input) == 200)
    }

    @Test("ecrecover returns the signer's address, and nothing for v outside 27/28")
    func ecrecover() throws {
        let key = [UInt8](repeating: 0x11, count: 32)
        let hash = Keccak256.hash(Array("hub".utf8))
        let signature = try Secp256k1.sign(hash: hash, privateKey: key)
        let expected = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: key))
        let input = hash + U256(27 + UInt64(signature.recoveryID)).bigEndianBytes + signature.r + signature.s
        #expect(try run(1, input) == [UInt8](repeating: 0, count: 12) + expected.bytes)
        let badV = hash + U256(29).bigEndianBytes + signature.r + signature.s
        #expect(try run(1, badV).isEmpty)
    }

    @Test("bn254: G + G equals 2·G")
    func bn254() throws {
        let g = U256(1).bigEndianBytes + U256(2).bigEndianBytes
        let sum = try run(6, g + g)
        #expect(
            Hex.encode(sum)
                == "0x030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd315ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4"
        )
        #expect(try run(7, g + U256(2).bigEndianBytes) == sum)
        // A point off the curve fails the call.
        guard case .failure = Precompile.bn254Add.run(input: U256(1).bigEndianBytes + U256(3).bigEndianBytes, gas: 1000) else {
            Issue.record("an off-curve point was accepted")
            return
        }
    }

    @Test("the empty pairing is 1; a pairing of points is reported as unsupported")
    func pairing() throws {
        #expect(try run(8, []) == U256.one.bigEndianBytes)
        guard case .failure(.unsupportedPrecompile(8)) = Precompile.bn254Pairing.run(input: [UInt8](repeating: 0, count: 192), gas: 1_000_000)
        else {
            Issue.record("expected unsupported")
            return
        }
    }

    @Test("the empty trie root and an empty state's root")
    func emptyRoot() {
        #expect(Hex.encode(MerklePatriciaTrie.emptyRoot) == "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
        #expect(InMemoryState().stateRoot.hexString == "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
    }
}
