import ChainKit
import Testing

@Suite("BIP39 mnemonics and Substrate seeds")
struct BIP39Tests {
    @Test("bip39.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "bip39") == ["valid", "invalid"])
        #expect(try !SubstrateVector.names(in: "bip39", kind: "valid").isEmpty)
        #expect(try !SubstrateVector.names(in: "bip39", kind: "invalid").isEmpty)
    }

    @Test("entropy and mnemonic convert both ways", arguments: try SubstrateVector.names(in: "bip39", kind: "valid"))
    func mnemonic(name: String) throws {
        let vector = try SubstrateVector(file: "bip39", named: name)
        let entropy = try vector.bytes("entropy")
        let mnemonic = try vector.string("mnemonic")
        #expect(try BIP39.mnemonic(fromEntropy: entropy) == mnemonic)
        #expect(try BIP39.entropy(fromMnemonic: mnemonic) == entropy)
        #expect(mnemonic.split(separator: " ").count == (try vector.int("word_count")))
    }

    @Test(
        "the Substrate seed and mini-secret match, and differ from the BIP39 seed (pitfall 6)",
        arguments: try SubstrateVector.names(in: "bip39", kind: "valid")
    )
    func substrateSeed(name: String) throws {
        let vector = try SubstrateVector(file: "bip39", named: name)
        let entropy = try vector.bytes("entropy")
        let password = try vector.string("password")
        // The password reaches the KDF as these exact bytes (the NFC and NFD vectors rely on it).
        #expect(Array(password.utf8) == (try vector.bytes("password_utf8")))

        let seed = try BIP39.substrateSeed(entropy: entropy, password: password)
        let miniSecret = try BIP39.substrateMiniSecret(entropy: entropy, password: password)
        #expect(seed == (try vector.bytes("substrate_seed")))
        #expect(miniSecret == (try vector.bytes("mini_secret")))
        #expect(try BIP39.substrateMiniSecret(mnemonic: vector.string("mnemonic"), password: password) == miniSecret)
        #expect(seed != (try vector.bytes("bip39_standard_seed")))
    }

    @Test("the standard BIP39 seed matches, with the password NFKD-normalised", arguments: try SubstrateVector.names(in: "bip39", kind: "valid"))
    func standardSeed(name: String) throws {
        let vector = try SubstrateVector(file: "bip39", named: name)
        let seed = try BIP39.seed(mnemonic: vector.string("mnemonic"), password: vector.string("password"))
        #expect(seed == (try vector.bytes("bip39_standard_seed")))
    }

    @Test("NFC and NFD spellings of a password give different secrets")
    func passwordIsNotNormalised() throws {
        let entropy = [UInt8](repeating: 0, count: 16)
        let composed = "p\u{E4}ssw\u{F6}rd"
        let decomposed = "pa\u{308}sswo\u{308}rd"
        #expect(composed == decomposed)  // Swift compares canonically; the bytes differ.
        #expect(
            try BIP39.substrateMiniSecret(entropy: entropy, password: composed)
                != BIP39.substrateMiniSecret(entropy: entropy, password: decomposed)
        )
    }

    @Test("refuses each invalid mnemonic for the vector's reason", arguments: try SubstrateVector.names(in: "bip39", kind: "invalid"))
    func invalid(name: String) throws {
        let vector = try SubstrateVector(file: "bip39", named: name)
        let mnemonic = try vector.string("mnemonic")
        let fragment = try #require(Self.messageFragment(reason: vector.string("reason"), mnemonic: mnemonic))
        #expect {
            try BIP39.entropy(fromMnemonic: mnemonic)
        } throws: { error in
            guard let error = error as? ChainKitError else { return false }
            return error.code == .invalidMnemonic && error.message.contains(fragment)
        }
        #expect(throws: ChainKitError(.invalidMnemonic, "")) { try BIP39.substrateMiniSecret(mnemonic: mnemonic) }
        #expect(throws: ChainKitError(.invalidMnemonic, "")) { try BIP39.seed(mnemonic: mnemonic) }
    }

    /// What the error message must contain for a vector's stated reason, so each phrase fails for that reason.
    private static func messageFragment(reason: String, mnemonic: String) -> String? {
        let words = mnemonic.split(separator: " ")
        if reason.hasPrefix("checksum mismatch") { return "checksum" }
        if reason == "no words" { return "not 0" }
        if reason.contains("words (must be") { return "not \(words.count)" }
        if reason.hasPrefix("word not in") || reason.hasPrefix("words are case-sensitive") {
            // The first word outside the list, named with its position.
            guard let position = words.firstIndex(where: { BIP39.englishWordList.contains(String($0)) == false }) else { return nil }
            return "word \(position + 1) '\(words[position])'"
        }
        return nil
    }

    @Test(
        "the error names the problem",
        arguments: [
            ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon hubd", "word 12 'hubd'"),
            ("Abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "word 1 'Abandon'"),
            ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon", "checksum"),
            ("abandon abandon abandon", "not 3"),
            ("", "not 0"),
        ]
    )
    func messages(mnemonic: String, fragment: String) {
        #expect {
            try BIP39.entropy(fromMnemonic: mnemonic)
        } throws: { error in
            guard let error = error as? ChainKitError else { return false }
            return error.code == .invalidMnemonic && error.message.contains(fragment)
        }
    }

    @Test("words may be separated by any whitespace, as Substrate's parser allows")
    func whitespace() throws {
        let spaced = "  bottom drive\tobey lake  curtain smoke basket hold race lonely fit\nwalk "
        #expect(try BIP39.entropy(fromMnemonic: spaced) == (try Hex.decode("0x1a486a5fbe53639984cb64b070755f7b")))
    }

    @Test("entropy of a length BIP39 does not define is refused", arguments: [0, 12, 15, 17, 33, 64])
    func badEntropyLength(length: Int) {
        let entropy = [UInt8](repeating: 1, count: length)
        #expect(throws: ChainKitError(.outOfRange, "")) { try BIP39.mnemonic(fromEntropy: entropy) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try BIP39.substrateMiniSecret(entropy: entropy) }
    }

    @Test("the word list is the 2048 sorted English words, and lookup finds each at its index")
    func wordList() {
        let words = BIP39.englishWordList
        #expect(words.count == 2048)
        #expect(words.first == "abandon")
        #expect(words.last == "zoo")
        #expect(words == words.sorted())
        #expect(Set(words).count == 2048)
        for (index, word) in words.enumerated() {
            #expect(BIP39.index(ofWord: word) == index)
        }
        #expect(BIP39.index(ofWord: "hubd") == nil)
        #expect(BIP39.index(ofWord: "") == nil)
        #expect(BIP39.index(ofWord: "zoos") == nil)
    }

    @Test("every entropy length round-trips through a mnemonic", arguments: BIP39.entropyLengths)
    func roundTrip(length: Int) throws {
        let entropy = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }
        let mnemonic = try BIP39.mnemonic(fromEntropy: entropy)
        #expect(mnemonic.split(separator: " ").count == length * 3 / 4)
        #expect(try BIP39.entropy(fromMnemonic: mnemonic) == entropy)
    }
}
