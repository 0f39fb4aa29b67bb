import HubKernel

/// DataUnion's login bodies, member for member (`specs/rails.md` §4.5). Its JSON is
/// `snake_case`, which the kernel's coder maps to these camel-case names. Every member is optional
/// so that a missing one gets DataUnion's `{"status": "failed"}` answer, not a decoding problem.
enum DataUnionShapes {
    struct RegisterRequest: Decodable {
        var publicAddress: String?
        var source: String?
        var referralId: String?
        var wallet: String?
    }

    struct LoginRequest: Decodable {
        var publicAddress: String?
        var source: String?
        /// sr25519 over the nonce's decimal digits, lowercase hex without `0x` (with it is taken too).
        var signature: String?
    }

    struct Nonce: Encodable {
        var status: String
        /// A JSON number, as the Brainstem app reads it (`as? Int`).
        var nonce: UInt64
    }

    struct Tokens: Encodable {
        var status = "success"
        var accessToken: String
        /// The kernel rotates refresh tokens: each `/refresh` answers the next one, and the one
        /// sent is used up (sending it again ends the session, as a stolen token's reuse would).
        var refreshToken: String
    }

    struct Failure: Encodable {
        var status = "failed"
        var message: String
    }
}
