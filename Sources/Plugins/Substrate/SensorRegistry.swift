import ChainKit
import HTTPTypes
import HubKernel

/// Sensors (Brainstem's devices): a user registers one, the hub keeps its key (made by the hub,
/// or brought by the sensor) and its DID `did:peaq:<address>`, and the sensor uploads readings
/// and files signed with its own key (``SensorUploadMessage``), kept zstd-compressed under their
/// blake2b-256 hash, tied to the sensor and readable by its owner.
///
/// - The DID's attributes are written through ``DIDRegistry`` (signed `PeaqDid` extrinsics kept
///   as proofs), in the unit of the sensor's own change. The signer is the sensor's key when the
///   hub made it (the DID's holder signs for itself, as the registry does for wallets), or else
///   the owner's oldest custodial wallet: PeaqDid lets any account add attributes to another's
///   DID and makes it their owner, which is how a user controls a device's DID.
/// - Revoking keeps the sensor and its history and refuses every later upload and DID change.
/// - Every change appends a `substrate.sensor.*` event in its unit.
struct SensorRegistry: Sendable {
    let context: PluginContext
    let secrets: WalletSecrets
    let dids: DIDRegistry
    let ss58Prefix: UInt16
    let limits: SensorUploadLimits

    /// A sensor asked for by its owner.
    struct Registration: Sendable {
        var name: String
        /// The key the sensor brings; `nil` for one the hub makes.
        var publicKey: [UInt8]?
        /// Names (at most 64 bytes each) and values of the DID attributes describing it.
        var attributes: [(name: [UInt8], value: [UInt8])]
    }

    /// An upload as the sensor sent it.
    struct Upload: Sendable {
        var sensor: [UInt8]
        var counter: UInt64
        var contentType: String
        var fileName: String?
        var content: [UInt8]
        var signature: [UInt8]
    }

    func address(_ publicKey: [UInt8]) throws -> String { try SS58.encode(publicKey, prefix: ss58Prefix) }

    // MARK: Registering and revoking

    /// Registers a sensor for `user` with its DID attributes, in one unit. A new key's secret is
    /// in the reply this once (`no-store`, so no `Idempotency-Key` keeps it); a brought key
    /// already the caller's sensor is answered as it is (200).
    func register(_ registration: Registration, by user: UserID) async throws -> HTTPReply {
        let made = try registration.publicKey == nil ? WalletSecrets.newWallet() : nil
        let miniSecret = try made.map { try BIP39.substrateMiniSecret(entropy: $0.entropy) }
        guard let publicKey = registration.publicKey ?? made?.keyPair.publicKey else { throw SubstrateError.invalid("public_key", "No key.") }
        let address = try address(publicKey)
        let registry = self
        return try await context.respondReply { [secrets] unit in
            let connection = unit.connection
            if let existing = try SensorRow.find(publicKey, on: connection, forUpdate: true) {
                guard existing.userID == user, made == nil else { throw SubstrateError.sensorTaken(address) }
                return try .json(try registry.representation(existing, on: connection))
            }
            let sealed = try made.map { try secrets.seal($0.entropy, publicKey: publicKey) }
            let kind: SubstrateWallet.Kind = made == nil ? .external : .custodial
            try connection.execute(
                """
                INSERT INTO substrate_sensors (public_key, user_id, name, kind, sealed_secret, counter, uploads, created_at) \
                VALUES (\(publicKey), \(user), \(registration.name), \(kind.rawValue), \(sealed), 0, 0, \(unit.now))
                """
            )
            guard let row = try SensorRow.find(publicKey, on: connection, forUpdate: false) else {
                throw SubstrateError.sensorNotFound(address)
            }
            var written: [DIDAttributeRepresentation] = []
            if !registration.attributes.isEmpty {
                let signer = try registry.signer(for: row, on: connection, keyPair: made?.keyPair)
                for attribute in registration.attributes {
                    let change = DIDRegistry.Change(
                        kind: .addAttribute,
                        did: try registry.dids.did(publicKey),
                        name: attribute.name,
                        value: attribute.value
                    )
                    if case .written(let shown, _) = try registry.dids.apply(
                        change,
                        account: publicKey,
                        signer: signer.publicKey,
                        in: unit,
                        signing: .key(signer.keyPair)
                    ) {
                        written.append(shown)
                    }
                }
            }
            var shown = try registry.representation(row, on: connection)
            shown.attributes = written
            try unit.emit(SubstrateEvents.sensorRegistered, subject: shown.did, data: shown)
            let created = CreatedSensorRepresentation(
                sensor: shown,
                mnemonic: made?.mnemonic,
                miniSecret: miniSecret.map { "0x" + HexText.encode($0) }
            )
            var reply = try HTTPReply.json(created, status: .created, location: "/v1/rails/substrate/sensors/\(address)")
            reply.noStore = made != nil
            return reply
        }
    }

    /// Revokes `user`'s sensor: later uploads are refused (410), its uploads stay readable.
    /// Revoking a revoked sensor answers it unchanged.
    func revoke(_ publicKey: [UInt8], by user: UserID) async throws -> HTTPReply {
        let address = try address(publicKey)
        let registry = self
        return try await context.respondReply { unit in
            let connection = unit.connection
            guard var row = try SensorRow.find(publicKey, on: connection, forUpdate: true), row.userID == user else {
                throw SubstrateError.sensorNotFound(address)
            }
            if row.revokedAt == nil {
                try connection.execute("UPDATE substrate_sensors SET revoked_at = \(unit.now) WHERE public_key = \(publicKey)")
                row.revokedAt = unit.now
                let shown = try registry.representation(row, on: connection)
                try unit.emit(SubstrateEvents.sensorRevoked, subject: shown.did, data: shown)
                return try .json(shown)
            }
            return try .json(try registry.representation(row, on: connection))
        }
    }

    // MARK: Uploads

    /// Keeps a signed upload. The signature is checked before anything is read or written; the
    /// counter must be above the sensor's last (a retry of the last upload itself, same counter,
    /// content and type, is answered with it, 200). zstd runs before the unit, so the writer's
    /// transaction never waits for it: a few milliseconds per MiB, CPU work like the signature
    /// check.
    func upload(_ upload: Upload) async throws -> HTTPReply {
        let address = try address(upload.sensor)
        guard upload.content.count <= limits.maxBytes else { throw SubstrateError.uploadTooLarge(limits.maxBytes) }
        guard limits.types.contains(upload.contentType) else {
            throw SubstrateError.unsupportedUploadType(upload.contentType, allowed: limits.types)
        }
        guard (1...SensorUploadMessage.maximumCounter).contains(upload.counter) else {
            throw SubstrateError.invalid("counter", "The counter is a whole number from 1 to 2^63 - 1.")
        }
        let hash = blake2b256(upload.content)
        let message = SensorUploadMessage(sensor: upload.sensor, counter: upload.counter, contentHash: hash, contentType: upload.contentType)
        guard message.verify(upload.signature) else { throw SubstrateError.invalidSignature() }
        let compressed = Zstd.compress(upload.content)
        let prefix = ss58Prefix
        return try await context.respondReply { unit in
            let connection = unit.connection
            guard let sensor = try SensorRow.find(upload.sensor, on: connection, forUpdate: true) else {
                throw SubstrateError.sensorNotFound(address)
            }
            guard sensor.revokedAt == nil else { throw SubstrateError.sensorRevoked(address) }
            let counter = Int64(upload.counter)
            guard counter > sensor.counter else {
                // The same signed upload again (a retry after a lost answer) is the upload kept.
                if let kept = try SensorUploadRow.find(sensor: upload.sensor, counter: counter, on: connection),
                    kept.hash == hash, kept.contentType == upload.contentType
                {
                    return try .json(try SensorUploadRepresentation(kept, prefix: prefix))
                }
                throw SubstrateError.counterReplayed(sensor.counter)
            }
            try connection.execute(
                """
                INSERT INTO substrate_sensor_uploads \
                (sensor, counter, hash, content_type, file_name, size, stored_size, content, signature, created_at) \
                VALUES (\(upload.sensor), \(counter), \(hash), \(upload.contentType), \(upload.fileName), \(Int64(upload.content.count)), \
                \(Int64(compressed.count)), \(compressed), \(upload.signature), \(unit.now))
                """
            )
            try connection.execute(
                """
                UPDATE substrate_sensors SET counter = \(counter), uploads = uploads + 1, last_upload_at = \(unit.now) \
                WHERE public_key = \(upload.sensor)
                """
            )
            guard let kept = try SensorUploadRow.find(sensor: upload.sensor, counter: counter, on: connection) else {
                throw SubstrateError.uploadNotFound()
            }
            let shown = try SensorUploadRepresentation(kept, prefix: prefix)
            try unit.emit(SubstrateEvents.sensorUploaded, subject: shown.did, data: shown)
            return try .json(shown, status: .created, location: shown.url)
        }
    }

    /// Writes the upload's content hash as an attribute of the sensor's DID: the name is the
    /// hash's 64 hex digits (the pallet's longest name), the value a JSON text of its counter,
    /// type and size. Anchoring an anchored hash answers its attribute (200).
    func anchor(_ publicKey: [UInt8], hash: [UInt8], by user: UserID) async throws -> HTTPReply {
        let address = try address(publicKey)
        let registry = self
        let prefix = ss58Prefix
        return try await context.respondReply { unit in
            let connection = unit.connection
            guard let sensor = try SensorRow.find(publicKey, on: connection, forUpdate: true), sensor.userID == user else {
                throw SubstrateError.sensorNotFound(address)
            }
            guard let upload = try SensorUploadRow.latest(sensor: publicKey, hash: hash, on: connection) else {
                throw SubstrateError.uploadNotFound()
            }
            let name = Array(HexText.encode(hash).utf8)
            if let existing = try registry.dids.attributes(of: publicKey, name: name, on: connection).first {
                return try .json(existing)
            }
            guard sensor.revokedAt == nil else { throw SubstrateError.sensorRevoked(address) }
            let shownUpload = try SensorUploadRepresentation(upload, prefix: prefix)
            let value = try HTTPReply.json(AnchorValue(counter: upload.counter, contentType: upload.contentType, size: upload.size)).body
            let signer = try registry.signer(for: sensor, on: connection, keyPair: nil)
            let change = DIDRegistry.Change(kind: .addAttribute, did: shownUpload.did, name: name, value: value)
            guard
                case .written(let attribute, _) = try registry.dids.apply(
                    change,
                    account: publicKey,
                    signer: signer.publicKey,
                    in: unit,
                    signing: .key(signer.keyPair)
                )
            else { throw SubstrateError.attributeNotFound() }
            try unit.emit(
                SubstrateEvents.sensorAnchored,
                subject: shownUpload.did,
                data: AnchoredRepresentation(upload: shownUpload, attribute: attribute)
            )
            return try .json(attribute, status: .created, location: "/v1/rails/substrate/dids/\(shownUpload.did)/attributes/\(attribute.name)")
        }
    }

    /// The value of an anchoring attribute.
    struct AnchorValue: Encodable {
        var counter: Int64
        var contentType: String
        var size: Int64
    }

    /// Who signs the DID changes of `sensor`: its own key when the hub made it (`keyPair` when
    /// just made), or the owner's oldest custodial wallet, its row locked (its nonces count its
    /// proofs). Opens no secret until the registry asks for the key.
    func signer(
        for sensor: SensorRow,
        on connection: any SQLConnection,
        keyPair made: Sr25519.KeyPair?
    ) throws -> (publicKey: [UInt8], keyPair: () throws -> Sr25519.KeyPair) {
        let prefix = ss58Prefix
        let secrets = secrets
        if sensor.kind == .custodial {
            let publicKey = sensor.publicKey
            return (
                publicKey,
                {
                    if let made { return made }
                    guard
                        let sealed = try connection.queryFirst("SELECT sealed_secret FROM substrate_sensors WHERE public_key = \(publicKey)")?
                            .optionalBytes("sealed_secret")
                    else { throw SubstrateError.keyUnavailable(try SS58.encode(publicKey, prefix: prefix)) }
                    return try secrets.keyPair(sealed: sealed, publicKey: publicKey, address: try SS58.encode(publicKey, prefix: prefix))
                }
            )
        }
        guard
            let wallet = try connection.queryFirst(
                """
                SELECT public_key, sealed_secret FROM substrate_wallets WHERE user_id = \(sensor.userID) AND kind = 'custodial' \
                ORDER BY created_at, public_key LIMIT 1
                """ + SQL.forUpdate(connection.dialect)
            )
        else { throw SubstrateError.sensorSignerRequired() }
        let publicKey = try wallet.bytes("public_key")
        let sealed = try wallet.bytes("sealed_secret")
        return (
            publicKey,
            {
                try secrets.keyPair(sealed: sealed, publicKey: publicKey, address: try SS58.encode(publicKey, prefix: prefix))
            }
        )
    }

    // MARK: Reading

    /// `user`'s sensors, oldest first.
    func sensors(of user: UserID) async throws -> [SensorRepresentation] {
        let registry = self
        return try await context.database.read { connection in
            try connection.query("SELECT " + SensorRow.columns + " FROM substrate_sensors WHERE user_id = \(user) ORDER BY created_at, public_key")
                .map { try registry.representation(try SensorRow($0), on: connection) }
        }
    }

    /// `user`'s sensor with its DID attributes and latest uploads; another's is `nil`.
    func sensor(_ publicKey: [UInt8], of user: UserID) async throws -> SensorRepresentation? {
        let registry = self
        let prefix = ss58Prefix
        return try await context.database.read { connection in
            guard let row = try SensorRow.find(publicKey, on: connection, forUpdate: false), row.userID == user else { return nil }
            var shown = try registry.representation(row, on: connection)
            shown.attributes = try registry.dids.attributes(of: publicKey, name: nil, on: connection)
            shown.latestUploads = try SensorUploadRow.page(sensor: publicKey, before: nil, limit: 5, on: connection)
                .map { try SensorUploadRepresentation($0, prefix: prefix) }
            return shown
        }
    }

    /// A page of the uploads of `user`'s sensor, newest first, before the counter `before`.
    func uploads(of publicKey: [UInt8], user: UserID, before: Int64?, limit: Int) async throws -> [SensorUploadRepresentation]? {
        let prefix = ss58Prefix
        return try await context.database.read { connection in
            guard let row = try SensorRow.find(publicKey, on: connection, forUpdate: false), row.userID == user else { return nil }
            return try SensorUploadRow.page(sensor: publicKey, before: before, limit: limit, on: connection)
                .map { try SensorUploadRepresentation($0, prefix: prefix) }
        }
    }

    /// The latest uploads of all of `user`'s sensors, newest first.
    func latestUploads(of user: UserID, limit: Int) async throws -> [SensorUploadRepresentation] {
        let prefix = ss58Prefix
        return try await context.database.read { connection in
            try connection.query(
                "SELECT " + SensorUploadRow.columns("u")
                    + """
                     FROM substrate_sensor_uploads u JOIN substrate_sensors s ON s.public_key = u.sensor \
                    WHERE s.user_id = \(user) ORDER BY u.created_at DESC, u.counter DESC LIMIT \(Int64(limit))
                    """
            ).map { try SensorUploadRepresentation(try SensorUploadRow($0), prefix: prefix) }
        }
    }

    /// The latest upload of `user`'s sensor with this content hash, and its content.
    func download(_ publicKey: [UInt8], hash: [UInt8], user: UserID) async throws -> SensorDownload {
        let address = try address(publicKey)
        let found = try await context.database.read { connection -> SensorDownload? in
            guard let row = try SensorRow.find(publicKey, on: connection, forUpdate: false), row.userID == user else {
                throw SubstrateError.sensorNotFound(address)
            }
            guard let upload = try SensorUploadRow.latest(sensor: publicKey, hash: hash, on: connection) else { return nil }
            let stored = try connection.queryFirst(
                "SELECT content FROM substrate_sensor_uploads WHERE sensor = \(publicKey) AND counter = \(upload.counter)"
            )?.bytes("content")
            return SensorDownload(upload: upload, compressed: stored ?? [])
        }
        guard let found else { throw SubstrateError.uploadNotFound() }
        return found
    }

    func representation(_ row: SensorRow, on connection: any SQLConnection) throws -> SensorRepresentation {
        try SensorRepresentation(row, prefix: ss58Prefix)
    }
}

/// A kept upload and its compressed content, as read for a download.
struct SensorDownload: Sendable {
    var upload: SensorUploadRow
    var compressed: [UInt8]

    /// The content as uploaded.
    func content() throws -> [UInt8] { try Zstd.decompress(compressed, limit: Int(upload.size)) }
}

/// What sensors may upload: at most `maxBytes` per file, of one of `types`.
struct SensorUploadLimits: Sendable, Equatable {
    static let defaultMaxBytes = 4 << 20
    /// The most the rail accepts as `sensor_max_upload_bytes`: every upload is held in memory.
    static let largestMaxBytes = 64 << 20
    static let defaultTypes = ["application/json", "text/plain", "text/csv", "application/octet-stream", "image/jpeg", "image/png"]

    var maxBytes = defaultMaxBytes
    var types = defaultTypes
}
