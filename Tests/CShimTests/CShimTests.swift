import CLibPQ
import COpenSSL
import CSQLite
import CSodium
import CZstd
import Testing

/// Each system library links and answers a known vector, so a missing or wrong -dev package
/// fails here with a clear name instead of deep inside a feature.
@Suite("System C libraries")
struct CShimTests {
    @Test("SQLite is 3.35 or newer (RETURNING, UPDATE FROM, partial indexes)")
    func sqlite() {
        #expect(sqlite3_libversion_number() >= 3_035_000)
    }

    @Test("libpq is thread-safe and 14 or newer")
    func libpq() {
        #expect(PQlibVersion() >= 140_000)
        #expect(PQisthreadsafe() == 1)
    }

    @Test("OpenSSL SHA-256 of 'abc' matches FIPS 180-2")
    func openssl() {
        var digest = [UInt8](repeating: 0, count: 32)
        let input: [UInt8] = Array("abc".utf8)
        _ = SHA256(input, input.count, &digest)
        #expect(hex(digest) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("libsodium BLAKE2b-256 of the empty string matches RFC 7693's reference")
    func sodium() {
        #expect(sodium_init() >= 0)
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, 32, nil, 0, nil, 0)
        #expect(hex(digest) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    @Test("zstd round-trips and rejects garbage")
    func zstd() {
        let input = [UInt8](repeating: 42, count: 10_000) + Array("end".utf8)
        var compressed = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let size = ZSTD_compress(&compressed, compressed.count, input, input.count, 3)
        #expect(ZSTD_isError(size) == 0)
        #expect(size < 100)
        var output = [UInt8](repeating: 0, count: input.count)
        let restored = ZSTD_decompress(&output, output.count, compressed, size)
        #expect(restored == input.count)
        #expect(output == input)
        let garbage: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(ZSTD_isError(ZSTD_decompress(&output, output.count, garbage, garbage.count)) != 0)
    }

    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }
}
