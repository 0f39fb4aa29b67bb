import HubKernel
import Testing

@Suite("key-encryption key (XChaCha20-Poly1305)")
struct KeyEncryptionKeyTests {
    static let secret = [UInt8](repeating: 0x5A, count: 32)
    static let context = Array("hubd-localchain-validator:7".utf8)

    @Test("opens the XChaCha20-Poly1305 test vector of draft-irtf-cfrg-xchacha §A.3.1")
    func draftVector() throws {
        let key = try #require(KeyEncryptionKey(keyBytes: (0x80...0x9F).map { UInt8($0) }))
        let nonce = (0x40...0x57).map { UInt8($0) }
        let associatedData: [UInt8] = [0x50, 0x51, 0x52, 0x53, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7]
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8
        )
        let ciphertext = hex(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e"
                + "1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
        )
        let tag = hex("c0875924c1c7987947deafd8780acf49")
        #expect(key.open(nonce + ciphertext + tag, associatedData: associatedData) == plaintext)
    }

    @Test("seals and opens; each seal has its own nonce")
    func roundTrip() throws {
        let key = KeyEncryptionKey.random()
        let first = key.seal(Self.secret, associatedData: Self.context)
        let second = key.seal(Self.secret, associatedData: Self.context)
        #expect(first.count == Self.secret.count + KeyEncryptionKey.overhead)
        #expect(first != second)
        #expect(key.open(first, associatedData: Self.context) == Self.secret)
        #expect(key.open(second, associatedData: Self.context) == Self.secret)
        #expect(key.open(key.seal([]), associatedData: []) == [])
    }

    @Test("does not open under another key, another context, or after any change")
    func refusals() throws {
        let key = KeyEncryptionKey.random()
        let sealed = key.seal(Self.secret, associatedData: Self.context)
        #expect(KeyEncryptionKey.random().open(sealed, associatedData: Self.context) == nil)
        #expect(key.open(sealed, associatedData: Array("hubd-localchain-validator:8".utf8)) == nil)
        for index in [0, KeyEncryptionKey.nonceLength, sealed.count - 1] {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(key.open(changed, associatedData: Self.context) == nil, "byte \(index) changed")
        }
        #expect(key.open(Array(sealed.prefix(KeyEncryptionKey.overhead - 1)), associatedData: Self.context) == nil)
    }

    @Test("a stored key must be exactly 32 bytes, and reloads to the same key")
    func storedKey() throws {
        #expect(KeyEncryptionKey(keyBytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(KeyEncryptionKey(keyBytes: [UInt8](repeating: 1, count: 33)) == nil)
        let key = KeyEncryptionKey.random()
        let reloaded = try #require(KeyEncryptionKey(keyBytes: key.keyBytes))
        #expect(reloaded.open(key.seal(Self.secret)) == Self.secret)
    }

    private func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
