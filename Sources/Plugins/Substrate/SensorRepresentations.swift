import ChainKit
import HubKernel

/// A sensor row.
struct SensorRow: Sendable, Hashable {
    static let columns: SQL = "public_key, user_id, name, kind, counter, uploads, last_upload_at, revoked_at, created_at"

    var publicKey: [UInt8]
    var userID: UserID
    var name: String
    /// `custodial`: the hub made the key (its secret sealed at rest); `external`: the sensor brought it.
    var kind: SubstrateWallet.Kind
    /// The last accepted upload's counter (0 before any).
    var counter: Int64
    var uploads: Int64
    var lastUploadAt: LedgerTimestamp?
    var revokedAt: LedgerTimestamp?
    var createdAt: LedgerTimestamp

    init(_ row: SQLRow) throws {
        publicKey = try row.bytes("public_key")
        userID = try row.decode("user_id")
        name = try row.text("name")
        guard let kind = SubstrateWallet.Kind(rawValue: try row.text("kind")) else {
            throw SubstrateError.invalid("kind", "unknown sensor kind in the database")
        }
        self.kind = kind
        counter = try row.int("counter")
        uploads = try row.int("uploads")
        lastUploadAt = try row.decode("last_upload_at")
        revokedAt = try row.decode("revoked_at")
        createdAt = try row.decode("created_at")
    }

    static func find(_ publicKey: [UInt8], on connection: any SQLConnection, forUpdate: Bool) throws -> SensorRow? {
        let lock = forUpdate ? SQL.forUpdate(connection.dialect) : ""
        return try connection.queryFirst("SELECT " + columns + " FROM substrate_sensors WHERE public_key = \(publicKey)" + lock)
            .map(SensorRow.init)
    }
}

/// An upload row, without its content.
struct SensorUploadRow: Sendable, Hashable {
    static func columns(_ table: String) -> SQL {
        let names = ["sensor", "counter", "hash", "content_type", "file_name", "size", "stored_size", "signature", "created_at"]
        let text = names.map { table.isEmpty ? $0 : "\(table).\($0)" }.joined(separator: ", ")
        return SQL(stringLiteral: text)
    }

    var sensor: [UInt8]
    var counter: Int64
    /// blake2b-256 of the content.
    var hash: [UInt8]
    var contentType: String
    var fileName: String?
    var size: Int64
    /// The zstd frame's size.
    var storedSize: Int64
    var signature: [UInt8]
    var createdAt: LedgerTimestamp

    init(_ row: SQLRow) throws {
        sensor = try row.bytes("sensor")
        counter = try row.int("counter")
        hash = try row.bytes("hash")
        contentType = try row.text("content_type")
        fileName = try row.optionalText("file_name")
        size = try row.int("size")
        storedSize = try row.int("stored_size")
        signature = try row.bytes("signature")
        createdAt = try row.decode("created_at")
    }

    static func find(sensor: [UInt8], counter: Int64, on connection: any SQLConnection) throws -> SensorUploadRow? {
        try connection.queryFirst("SELECT " + columns("") + " FROM substrate_sensor_uploads WHERE sensor = \(sensor) AND counter = \(counter)")
            .map(SensorUploadRow.init)
    }

    /// The newest upload of `sensor` with this content (a sensor may send the same bytes again).
    static func latest(sensor: [UInt8], hash: [UInt8], on connection: any SQLConnection) throws -> SensorUploadRow? {
        try connection.queryFirst(
            "SELECT " + columns("") + " FROM substrate_sensor_uploads WHERE sensor = \(sensor) AND hash = \(hash) ORDER BY counter DESC LIMIT 1"
        ).map(SensorUploadRow.init)
    }

    static func page(sensor: [UInt8], before: Int64?, limit: Int, on connection: any SQLConnection) throws -> [SensorUploadRow] {
        var filter: SQL = ""
        if let before { filter = " AND counter < \(before)" }
        return try connection.query(
            "SELECT " + columns("") + " FROM substrate_sensor_uploads WHERE sensor = \(sensor)" + filter
                + " ORDER BY counter DESC LIMIT \(Int64(limit))"
        ).map(SensorUploadRow.init)
    }
}

/// A sensor as the API shows it. Never carries a secret.
struct SensorRepresentation: Sendable, Codable, Equatable {
    /// SS58 with the configured prefix.
    var address: String
    var publicKey: String
    var did: String
    var name: String
    var kind: SubstrateWallet.Kind
    /// `active` or `revoked`.
    var status: String
    /// The last accepted upload's counter: the next upload's must be above it.
    var counter: Int64
    var uploads: Int64
    var lastUploadAt: String?
    var revokedAt: String?
    var createdAt: String
    /// In the sensor's own view and registration answer: its DID's attributes.
    var attributes: [DIDAttributeRepresentation]?
    /// In the sensor's own view: its five latest uploads.
    var latestUploads: [SensorUploadRepresentation]?

    init(_ row: SensorRow, prefix: UInt16) throws {
        address = try SS58.encode(row.publicKey, prefix: prefix)
        publicKey = "0x" + HexText.encode(row.publicKey)
        did = "did:peaq:" + address
        name = row.name
        kind = row.kind
        status = row.revokedAt == nil ? "active" : "revoked"
        counter = row.counter
        uploads = row.uploads
        lastUploadAt = row.lastUploadAt?.description
        revokedAt = row.revokedAt?.description
        createdAt = row.createdAt.description
    }
}

/// A new sensor: the sensor and, when the hub made its key, the key's secret this once, as the
/// 12-word mnemonic (what Substrate wallets import) and the 32-byte mini secret it derives
/// (what sr25519 libraries on devices take, e.g. `sr25519_keypair_from_seed`).
struct CreatedSensorRepresentation: Sendable, Encodable {
    var sensor: SensorRepresentation
    var mnemonic: String?
    var miniSecret: String?

    func encode(to encoder: any Encoder) throws {
        try sensor.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(mnemonic, forKey: .mnemonic)
        try container.encodeIfPresent(miniSecret, forKey: .miniSecret)
    }

    private enum Keys: String, CodingKey {
        case mnemonic
        case miniSecret = "mini_secret"
    }
}

/// An upload as the API shows it; its content is at ``url``.
struct SensorUploadRepresentation: Sendable, Codable, Equatable {
    var sensor: String
    var did: String
    /// `0x` + blake2b-256 of the content.
    var hash: String
    var counter: Int64
    var contentType: String
    var fileName: String?
    var size: Int64
    /// Bytes kept at rest (zstd).
    var storedSize: Int64
    /// The sensor's sr25519 signature of the upload message, `0x` + hex.
    var signature: String
    var createdAt: String
    /// Where the owner downloads the content.
    var url: String

    init(_ row: SensorUploadRow, prefix: UInt16) throws {
        sensor = try SS58.encode(row.sensor, prefix: prefix)
        did = "did:peaq:" + sensor
        hash = "0x" + HexText.encode(row.hash)
        counter = row.counter
        contentType = row.contentType
        fileName = row.fileName
        size = row.size
        storedSize = row.storedSize
        signature = "0x" + HexText.encode(row.signature)
        createdAt = row.createdAt.description
        url = "/v1/rails/substrate/sensors/\(sensor)/uploads/\(hash)"
    }
}

/// The data of `substrate.sensor.anchored`.
struct AnchoredRepresentation: Sendable, Encodable {
    var upload: SensorUploadRepresentation
    var attribute: DIDAttributeRepresentation
}
