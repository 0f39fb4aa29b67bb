import ChainKit
import Testing

@Suite("SS58 addresses and Base58")
struct SS58Tests {
    @Test("ss58.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "ss58") == ["valid", "invalid"])
        #expect(try !SubstrateVector.names(in: "ss58", kind: "valid").isEmpty)
        #expect(try !SubstrateVector.names(in: "ss58", kind: "invalid").isEmpty)
    }

    @Test("encodes each account to the vector's address", arguments: try SubstrateVector.names(in: "ss58", kind: "valid"))
    func encode(name: String) throws {
        let vector = try SubstrateVector(file: "ss58", named: name)
        let prefix = try UInt16(vector.int("prefix"))
        #expect(try SS58.encode(vector.bytes("public_key"), prefix: prefix) == (try vector.string("address")))
        #expect(try SS58.prefixBytes(prefix) == (try vector.bytes("prefix_bytes")))
    }

    @Test("decodes each address to its prefix and account", arguments: try SubstrateVector.names(in: "ss58", kind: "valid"))
    func decode(name: String) throws {
        let vector = try SubstrateVector(file: "ss58", named: name)
        let address = try vector.string("address")
        let (prefix, account) = try SS58.decode(address)
        #expect(Int(prefix) == (try vector.int("prefix")))
        #expect(account == (try vector.bytes("public_key")))
        #expect(try SS58.decode(address, expectedPrefix: prefix) == account)
    }

    @Test("the address is base58(prefix ‖ account ‖ checksum)", arguments: try SubstrateVector.names(in: "ss58", kind: "valid"))
    func layout(name: String) throws {
        let vector = try SubstrateVector(file: "ss58", named: name)
        let payload = try vector.bytes("prefix_bytes") + vector.bytes("public_key")
        let checksum = try vector.bytes("checksum")
        #expect(Array(blake2b512(Array("SS58PRE".utf8) + payload).prefix(2)) == checksum)
        #expect(try Base58.decode(vector.string("address")) == payload + checksum)
        #expect(Base58.encode(payload + checksum) == (try vector.string("address")))
    }

    @Test("refuses each invalid address for the vector's reason", arguments: try SubstrateVector.names(in: "ss58", kind: "invalid"))
    func invalid(name: String) throws {
        let vector = try SubstrateVector(file: "ss58", named: name)
        let address = try vector.string("address")
        let reason = try vector.string("reason")
        let decode: () throws -> Void
        if vector["expected_prefix"] != nil {
            let expected = try UInt16(vector.int("expected_prefix"))
            _ = try SS58.decode(address)  // a valid address, on the wrong network
            decode = { _ = try SS58.decode(address, expectedPrefix: expected) }
        } else {
            decode = { _ = try SS58.decode(address) }
        }
        let fragment = Self.messageFragment(reason: reason, vector: vector)
        #expect {
            try decode()
        } throws: { error in
            guard let error = error as? ChainKitError, error.code == .invalidAddress else { return false }
            return fragment.map { error.message.contains($0) } ?? true
        }
    }

    /// What the error message must contain for a vector's stated reason (nil where the reason names no
    /// single check: a dropped character changes the whole base58 number, so any check may catch it first).
    private static func messageFragment(reason: String, vector: SubstrateVector) -> String? {
        if reason.contains("checksum does not match") { return "checksum" }
        if reason == "empty string" { return "empty" }
        if reason.hasSuffix("is not in the base58 alphabet") { return String(reason.prefix(3)) + " at position" }
        if let expected = vector["expected_prefix"] as? Int { return "expected \(expected)" }
        if let size = reason.split(separator: "-").first.flatMap({ Int($0) }), reason.contains("bad length") {
            return "\(size) account bytes"
        }
        return nil
    }

    @Test(
        "the error says what is wrong",
        arguments: [
            ("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ", "checksum"),
            ("5GrwvaEF5z0b26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "'0' at position 11"),
            ("yA3vprfzKUKan9P1eXE6iMGCMSMDZEnAtb6wEjTEf86ZXt", "31 account bytes"),
            ("", "empty"),
        ]
    )
    func messages(address: String, fragment: String) {
        #expect {
            try SS58.decode(address)
        } throws: { error in
            guard let error = error as? ChainKitError else { return false }
            return error.code == .invalidAddress && error.message.contains(fragment)
        }
    }

    @Test("33-byte ECDSA account keys round-trip")
    func ecdsaAccount() throws {
        let key = [UInt8](repeating: 0x02, count: 1) + [UInt8](repeating: 0xAB, count: 32)
        for prefix: UInt16 in [0, 42, 1221] {
            let address = try SS58.encode(key, prefix: prefix)
            let decoded = try SS58.decode(address)
            #expect(decoded.prefix == prefix)
            #expect(decoded.account == key)
        }
    }

    @Test("encoding refuses a prefix above 16383 and accounts that are not 32 or 33 bytes")
    func encodeRefuses() {
        let account = [UInt8](repeating: 1, count: 32)
        #expect(throws: ChainKitError(.outOfRange, "")) { try SS58.encode(account, prefix: 16384) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try SS58.prefixBytes(.max) }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.encode(account.dropLast(), prefix: 42) }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.encode([UInt8](), prefix: 42) }
    }

    /// Builds an address from a raw payload with a correct checksum, to test what decode does with odd prefixes.
    private func address(payload: [UInt8]) -> String {
        Base58.encode(payload + blake2b512(Array("SS58PRE".utf8) + payload).prefix(2))
    }

    @Test("decoding refuses a reserved prefix byte and a small prefix in the two-byte form")
    func oddPrefixes() {
        let account = [UInt8](repeating: 7, count: 32)
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.decode(address(payload: [0x80, 0x00] + account)) }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.decode(address(payload: [0xFF] + account)) }
        // Prefix 42 written as two bytes: sp-core would read it, but it is not the canonical address of (42, account).
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.decode(address(payload: [0x4A, 0x80] + account)) }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.decode(address(payload: [42])) }
    }

    @Test("decoding refuses text too long to be an address before doing base58 arithmetic on it")
    func tooLong() {
        #expect(throws: ChainKitError(.invalidAddress, "")) { try SS58.decode(String(repeating: "z", count: 10_000)) }
    }

    @Test("every two-byte prefix round-trips")
    func allTwoBytePrefixes() throws {
        let account = [UInt8](repeating: 0x5A, count: 32)
        for prefix in stride(from: UInt16(64), through: SS58.maximumPrefix, by: 61) {
            #expect(try SS58.decode(SS58.encode(account, prefix: prefix)).prefix == prefix)
        }
        #expect(try SS58.decode(SS58.encode(account, prefix: SS58.maximumPrefix)).prefix == SS58.maximumPrefix)
    }

    @Test("Base58 keeps leading zero bytes as '1's and refuses characters outside the alphabet")
    func base58() throws {
        #expect(Base58.encode([]) == "")
        #expect(Base58.encode([0, 0, 0]) == "111")
        #expect(Base58.encode([0, 0, 0x39]) == "11z")
        #expect(Base58.encode(Array("hello world".utf8)) == "StV1DL6CwTryKyV")
        #expect(try Base58.decode("111") == [0, 0, 0])
        #expect(try Base58.decode("StV1DL6CwTryKyV") == Array("hello world".utf8))
        #expect(try Base58.decode("") == [])
        for text in ["0", "O", "I", "l", "+", " ", "é", "5Grw\u{1F600}"] {
            #expect(throws: ChainKitError(.invalidAddress, "")) { try Base58.decode(text) }
        }
        let bytes = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        #expect(try Base58.decode(Base58.encode([0] + bytes)) == [0] + bytes)
    }
}
