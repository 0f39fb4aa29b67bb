import ChainKit
import HubKernel

/// Images of items and chat messages, kept in the rail's database under the SHA-256 of their
/// bytes: the same file uploaded twice is one row and one id, and an id names its bytes forever,
/// so they are served as immutable. Only the formats of ``ImageFormat``, at most 2 MiB each.
struct ImageStore: Sendable {
    let context: PluginContext

    /// The largest image kept: a photograph of an item at a size a marketplace shows.
    static let maximumBytes = 2 << 20

    /// Keeps `bytes`, declared as `contentType`; `created` is `false` when they were kept already.
    func store(_ bytes: [UInt8], contentType: String?, by user: UserID) async throws -> (image: StoredImage, created: Bool) {
        guard let format = ImageFormat(contentType: contentType) else { throw EVMError.unsupportedImageType(contentType) }
        guard bytes.count <= Self.maximumBytes else { throw EVMError.imageTooLarge }
        guard format.matches(bytes) else {
            throw EVMError(
                kind: .unsupportedType,
                errorCode: "image_type_mismatch",
                message:
                    "The body is declared as \(format.rawValue) but its first bytes are not those of a \(format.rawValue) file; nothing was stored."
            )
        }
        // A few milliseconds of hashing for the largest image: done in place, as the
        // Idempotency-Key layer hashes the same body.
        let id = Hex.encode(sha256(bytes), prefix: false)
        return try await context.write { unit in
            let inserted = try unit.connection.execute(
                """
                INSERT INTO evm_images (sha256, content_type, size, bytes, uploaded_by, created_at) \
                VALUES (\(id), \(format.rawValue), \(Int64(bytes.count)), \(bytes), \(user.description), \(unit.now)) \
                ON CONFLICT (sha256) DO NOTHING
                """
            )
            guard let row = try unit.connection.queryFirst("SELECT \(StoredImage.columns) FROM evm_images WHERE sha256 = \(id)") else {
                throw EVMError(kind: .unavailable, errorCode: "image_not_stored", message: "The image was not stored; retry.")
            }
            return (try StoredImage(row), inserted > 0)
        }
    }

    /// The image's description and bytes, or `nil` when there is none with this id.
    func image(_ id: String) async throws -> (image: StoredImage, bytes: [UInt8])? {
        guard Self.isID(id) else { return nil }
        return try await context.database.read { connection in
            try connection.queryFirst("SELECT \(StoredImage.columns), bytes FROM evm_images WHERE sha256 = \(id)")
                .map { (try StoredImage($0), try $0.bytes("bytes")) }
        }
    }

    func exists(_ id: String) async throws -> Bool {
        guard Self.isID(id) else { return false }
        return try await context.database.read { try Self.exists(id, on: $0) }
    }

    /// `ids` for an item or a message to show: each a kept image, named once; otherwise a 422
    /// naming `field`, before anything is written or sent.
    func require(_ ids: [String], field: String) async throws {
        guard Set(ids).count == ids.count else { throw EVMError.invalid(field, "Each image is named once.") }
        let missing = try await context.database.read { connection in
            try ids.first { id in try !Self.isID(id) || !Self.exists(id, on: connection) }
        }
        if let missing {
            throw EVMError.invalid(
                field,
                "No image '\(missing.prefix(64))': upload it first (POST /v1/rails/evm/images) and name it by the id returned."
            )
        }
    }

    static func exists(_ id: String, on connection: any SQLConnection) throws -> Bool {
        try connection.queryFirst("SELECT 1 AS found FROM evm_images WHERE sha256 = \(id)") != nil
    }

    /// An image id: the SHA-256 of its bytes as 64 lowercase hex digits.
    static func isID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// A kept image as the API describes it (its bytes are `GET /images/{id}`).
struct StoredImage: Sendable, Hashable, Encodable {
    /// The lowercase hex SHA-256 of the bytes.
    var id: String
    var contentType: String
    var size: Int64
    var createdAt: String

    static let columns: SQL = "sha256, content_type, size, created_at"

    init(_ row: SQLRow) throws {
        id = try row.text("sha256")
        contentType = try row.text("content_type")
        size = try row.int("size")
        createdAt = try row.decode("created_at", as: LedgerTimestamp.self).description
    }
}

extension EVMError {
    static var imageTooLarge: EVMError {
        EVMError(
            kind: .tooLarge,
            errorCode: "image_too_large",
            message: "An image is at most \(ImageStore.maximumBytes) bytes (2 MiB); nothing was stored."
        )
    }

    static func unsupportedImageType(_ contentType: String?) -> EVMError {
        EVMError(
            kind: .unsupportedType,
            errorCode: "unsupported_image_type",
            message: "Images are \(ImageFormat.list), sent as the body with that Content-Type; not '\((contentType ?? "none").prefix(80))'."
        )
    }
}
