import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL, as the EVM's precompile 0x02 and BIP-39 checksums use it.
public func sha256(_ data: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    data.withUnsafeBufferPointer { input in
        _ = SHA256(input.baseAddress, input.count, &digest)
    }
    return digest
}
