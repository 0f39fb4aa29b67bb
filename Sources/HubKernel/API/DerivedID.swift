/// Ids derived from what they identify, so that a request repeated without an id of its own lands
/// on the same record (`exists`) instead of creating a second one.
enum DerivedID {
    static func wallet(user: String, asset: AssetCode) -> AccountID {
        AccountID(rawValue: derive("wallet\u{0}\(user)\u{0}\(asset.rawValue)"))
    }

    static func transfer(resolving pending: TransferID, post: Bool) -> TransferID {
        TransferID(rawValue: derive("\(post ? "post" : "void")\u{0}\(pending)"))
    }

    /// The first 16 bytes of SHA-256, marked as an RFC 9562 version-8 (custom) UUID.
    static func derive(_ name: String) -> UInt128 {
        var digest = SHA256Digest.hash(name)
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        return digest[0..<16].reduce(UInt128(0)) { ($0 << 8) | UInt128($1) }
    }
}
