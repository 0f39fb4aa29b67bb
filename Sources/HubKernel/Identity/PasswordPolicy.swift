/// What a password must be: 10…1024 bytes of UTF-8.
///
/// Length is the one rule that measurably helps (NIST SP 800-63B drops composition rules). The
/// upper bound keeps a hash request from being a denial of service: argon2 reads the whole input.
public struct PasswordPolicy: Sendable, Hashable {
    /// The fewest UTF-8 bytes a password may have.
    public var minimumBytes: Int
    /// The most UTF-8 bytes a password may have.
    public var maximumBytes: Int

    public init(minimumBytes: Int = 10, maximumBytes: Int = 1024) {
        self.minimumBytes = minimumBytes
        self.maximumBytes = maximumBytes
    }

    /// Throws `weak_password` (field `password`) unless `password` fits.
    public func check(_ password: String) throws {
        let length = password.utf8.count
        guard length >= minimumBytes else {
            throw IdentityError(.weakPassword, "a password needs at least \(minimumBytes) bytes", field: "password")
        }
        guard length <= maximumBytes else {
            throw IdentityError(.weakPassword, "a password may have at most \(maximumBytes) bytes", field: "password")
        }
    }
}
