import COpenSSL
import Foundation

/// BIP39 mnemonics (English list) and Substrate's key derivation from them (substrate-bip39).
///
/// A mnemonic encodes *entropy*: 11 bits per word, the last word ending in a checksum of `entropy bits / 32`
/// bits taken from SHA-256(entropy). Substrate derives keys from the entropy, not from the sentence as
/// BIP39's own seed does, so the same phrase gives different keys in Substrate and in Bitcoin/Ethereum wallets:
///
/// ```swift
/// let entropy = try BIP39.entropy(fromMnemonic: "bottom drive obey lake curtain smoke basket hold race lonely fit walk")
/// let miniSecret = try BIP39.substrateMiniSecret(entropy: entropy, password: "")   // sr25519/ed25519 seed
/// ```
public enum BIP39 {
    /// The entropy sizes BIP39 defines, in bytes (12, 15, 18, 21 and 24 words).
    public static let entropyLengths: [Int] = [16, 20, 24, 28, 32]
    /// The word counts BIP39 defines.
    public static let wordCounts: [Int] = [12, 15, 18, 21, 24]

    private static let pbkdf2Rounds: Int32 = 2048
    /// A bound far above any real password, so its length always fits OpenSSL's `int`.
    private static let maximumPasswordLength = 1 << 16

    /// The English mnemonic for `entropy`: words separated by single spaces.
    /// - Throws: `out_of_range` unless the entropy is 16, 20, 24, 28 or 32 bytes.
    public static func mnemonic(fromEntropy entropy: [UInt8]) throws -> String {
        try checkEntropyLength(entropy)
        let checksumBits = entropy.count / 4
        let bits = BitReader(entropy + sha256(entropy))
        let wordCount = (entropy.count * 8 + checksumBits) / 11
        let words = (0..<wordCount).map { englishWordList[bits.value(at: $0 * 11, width: 11)] }
        return words.joined(separator: " ")
    }

    /// The entropy a mnemonic encodes, after checking it.
    ///
    /// Words may be separated by any run of whitespace (as Substrate's parser allows); they must be lowercase
    /// words of the English list.
    /// - Throws: `invalid_mnemonic` for a word count other than 12, 15, 18, 21 or 24, a word outside the list
    ///   (naming it and its position, from 1), or a checksum that does not match.
    public static func entropy(fromMnemonic mnemonic: String) throws -> [UInt8] {
        try decode(words: mnemonic.split(whereSeparator: \.isWhitespace))
    }

    private static func decode(words: [Substring]) throws -> [UInt8] {
        guard wordCounts.contains(words.count) else {
            throw ChainKitError(.invalidMnemonic, "a mnemonic has 12, 15, 18, 21 or 24 words, not \(words.count)")
        }
        var indices: [Int] = []
        indices.reserveCapacity(words.count)
        for (position, word) in words.enumerated() {
            guard let index = index(ofWord: word) else {
                throw ChainKitError(.invalidMnemonic, "word \(position + 1) '\(word)' is not in the BIP39 English list")
            }
            indices.append(index)
        }

        // Pack the 11-bit values, then split them into entropy and checksum.
        let totalBits = words.count * 11
        let checksumBits = totalBits / 33
        var packed = [UInt8](repeating: 0, count: (totalBits + 7) / 8)
        for (wordIndex, value) in indices.enumerated() {
            for bit in 0..<11 where value & (1 << (10 - bit)) != 0 {
                let position = wordIndex * 11 + bit
                packed[position / 8] |= 0x80 >> (position % 8)
            }
        }
        let entropy = Array(packed.prefix((totalBits - checksumBits) / 8))
        let expected = BitReader(sha256(entropy)).value(at: 0, width: checksumBits)
        let actual = BitReader(packed).value(at: totalBits - checksumBits, width: checksumBits)
        guard expected == actual else {
            throw ChainKitError(.invalidMnemonic, "the mnemonic's checksum does not match its words")
        }
        return entropy
    }

    /// The index (0...2047) of `word` in the English list, or nil when it is not there.
    public static func index(ofWord word: some StringProtocol) -> Int? {
        // The list is sorted (the generator checks), so a binary search finds a word without a dictionary.
        var low = 0
        var high = englishWordList.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = englishWordList[middle]
            if candidate == word { return middle }
            if candidate < word { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Substrate's 64-byte seed: PBKDF2-HMAC-SHA512 with the *entropy* as the password and
    /// `"mnemonic" + password` as the salt, 2048 rounds.
    ///
    /// The password is used as its UTF-8 bytes exactly as given, with no Unicode normalisation
    /// (substrate-bip39 does none), so differently normalised spellings of one password give different keys.
    /// - Throws: `out_of_range` unless the entropy is 16, 20, 24, 28 or 32 bytes, or for a password over 64 KiB.
    public static func substrateSeed(entropy: [UInt8], password: String = "") throws -> [UInt8] {
        try checkEntropyLength(entropy)
        guard password.utf8.count <= maximumPasswordLength else {
            throw ChainKitError(.outOfRange, "the password is longer than \(maximumPasswordLength) bytes")
        }
        return pbkdf2SHA512(password: entropy, salt: Array("mnemonic".utf8) + Array(password.utf8), length: 64)
    }

    /// Substrate's mini-secret: the first 32 bytes of ``substrateSeed(entropy:password:)``, which seeds
    /// sr25519 and ed25519 key pairs (what `//Alice`-style derivations start from).
    /// - Throws: `out_of_range` unless the entropy is 16, 20, 24, 28 or 32 bytes.
    public static func substrateMiniSecret(entropy: [UInt8], password: String = "") throws -> [UInt8] {
        Array(try substrateSeed(entropy: entropy, password: password).prefix(32))
    }

    /// The mini-secret of a mnemonic: ``entropy(fromMnemonic:)`` then ``substrateMiniSecret(entropy:password:)``.
    /// - Throws: `invalid_mnemonic` for a phrase that does not check.
    public static func substrateMiniSecret(mnemonic: String, password: String = "") throws -> [UInt8] {
        try substrateMiniSecret(entropy: entropy(fromMnemonic: mnemonic), password: password)
    }

    /// The standard BIP39 seed that Bitcoin and Ethereum wallets feed to BIP32: PBKDF2-HMAC-SHA512 over the
    /// *sentence*, salt `"mnemonic" + password`, both NFKD-normalised, 2048 rounds. Substrate does not use it.
    ///
    /// The phrase is checked first and hashed as its words joined by single spaces, so stray whitespace
    /// cannot silently select a different wallet.
    /// - Throws: `invalid_mnemonic` for a phrase that does not check; `out_of_range` for a password over 64 KiB.
    public static func seed(mnemonic: String, password: String = "") throws -> [UInt8] {
        let words = mnemonic.split(whereSeparator: \.isWhitespace)
        _ = try decode(words: words)
        let salt = "mnemonic" + password.decomposedStringWithCompatibilityMapping
        guard salt.utf8.count <= maximumPasswordLength else {
            throw ChainKitError(.outOfRange, "the password is longer than \(maximumPasswordLength) bytes")
        }
        // English words are ASCII, which NFKD leaves as it is.
        let sentence = words.joined(separator: " ")
        return pbkdf2SHA512(password: Array(sentence.utf8), salt: Array(salt.utf8), length: 64)
    }

    private static func checkEntropyLength(_ entropy: [UInt8]) throws {
        guard entropyLengths.contains(entropy.count) else {
            throw ChainKitError(.outOfRange, "BIP39 entropy must be 16, 20, 24, 28 or 32 bytes, not \(entropy.count)")
        }
    }

    private static func sha256(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBufferPointer { input in
            _ = SHA256(input.baseAddress, input.count, &digest)
        }
        return digest
    }

    private static func pbkdf2SHA512(password: [UInt8], salt: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                PKCS5_PBKDF2_HMAC(
                    passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                    Int32(passwordBytes.count),
                    saltBytes.baseAddress,
                    Int32(saltBytes.count),
                    pbkdf2Rounds,
                    EVP_sha512(),
                    Int32(length),
                    &out
                )
            }
        }
        // OpenSSL fails here only when it cannot allocate; there is no input that makes it fail.
        precondition(status == 1, "PKCS5_PBKDF2_HMAC failed")
        return out
    }
}

/// Reads big-endian bit fields, as BIP39 numbers its bits (most significant bit of the first byte first).
private struct BitReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func value(at start: Int, width: Int) -> Int {
        var value = 0
        for position in start..<(start + width) {
            let bit = (bytes[position / 8] >> (7 - position % 8)) & 1
            value = value << 1 | Int(bit)
        }
        return value
    }
}
