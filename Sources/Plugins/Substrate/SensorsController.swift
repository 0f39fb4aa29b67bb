import ChainKit
import Foundation
import HubKernel
import Hummingbird
import NIOCore

/// `/v1/rails/substrate/sensors…`: sensors and their signed uploads (``SensorRegistry``;
/// docs/substrate-sensors.md).
///
/// - `POST sensors` `{"name", "public_key"?, "attributes"?: [{"name", "value" | "value_hex"}]}`
///   (owner signed in): 201 with the sensor, its DID and, when the hub made the key, its secret
///   this once (`Cache-Control: no-store`).
/// - `GET sensors`, `GET sensors/{address}` (with DID attributes and latest uploads),
///   `DELETE sensors/{address}` (revoke): the owner's only; another's answers 404.
/// - `POST sensors/{address}/uploads`: `multipart/form-data` with `file`, `file-type`, `counter`
///   and `signature`, authenticated by the sensor's signature alone (no user token).
/// - `GET sensors/{address}/uploads` (`?limit=`, `?cursor=`), `GET …/uploads/{hash}` (the
///   content, decompressed, with its type), `POST …/uploads/{hash}/anchor` (the hash as a DID
///   attribute), `GET sensor-uploads` (the latest of all the caller's sensors).
struct SensorsController: Sendable {
    let sensors: SensorRegistry

    /// Room for the multipart framing and the small parts around the file.
    static let framingAllowance = 16 << 10

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("sensors", use: register)
        group.get("sensors", use: list)
        group.get("sensors/{address}", use: show)
        group.delete("sensors/{address}", use: revoke)
        group.post("sensors/{address}/uploads", use: upload)
        group.get("sensors/{address}/uploads", use: uploads)
        group.get("sensors/{address}/uploads/{hash}", use: download)
        group.post("sensors/{address}/uploads/{hash}/anchor", use: anchor)
        group.get("sensor-uploads", use: latest)
    }

    struct RegisterRequest: Decodable {
        var name: String
        var publicKey: String?
        var attributes: [DIDsController.AttributeRequest]?
    }

    @Sendable func register(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: RegisterRequest.self, context: context)
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(name.count) else { throw SubstrateError.invalid("name", "A sensor's name is 1 to 100 characters.") }
        let publicKey: [UInt8]?
        do {
            publicKey = try body.publicKey.map(SubstrateSignatureVerifier.publicKey)
        } catch var error as SubstrateError {
            error.field = "public_key"
            throw error
        }
        let requested = body.attributes ?? []
        guard requested.count <= 16 else { throw SubstrateError.invalid("attributes", "At most 16 attributes describe a sensor.") }
        var attributes: [(name: [UInt8], value: [UInt8])] = []
        for (index, attribute) in requested.enumerated() {
            guard let attributeName = attribute.name else {
                throw SubstrateError.invalidSuppliedValue("attributes[\(index)].name", "An attribute has a name.")
            }
            let bytes = Array(attributeName.utf8)
            try DIDRegistry.checkName(bytes)
            guard !attributes.contains(where: { $0.name == bytes }) else {
                throw SubstrateError.invalidSuppliedValue("attributes[\(index)].name", "Each attribute is named once.")
            }
            attributes.append((bytes, try DIDsController.value(of: attribute)))
        }
        let registration = SensorRegistry.Registration(name: name, publicKey: publicKey, attributes: attributes)
        return try await sensors.register(registration, by: principal.userID).response()
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        return try context.json(["data": try await sensors.sensors(of: principal.userID)])
    }

    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let (publicKey, address) = try Self.sensorKey(context)
        guard let sensor = try await sensors.sensor(publicKey, of: principal.userID) else { throw SubstrateError.sensorNotFound(address) }
        return try context.json(sensor)
    }

    @Sendable func revoke(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (publicKey, _) = try Self.sensorKey(context)
        return try await sensors.revoke(publicKey, by: principal.userID).response()
    }

    /// The sensor's upload. A body over the limit is refused as soon as it passes it (413), a
    /// body that is not multipart before it is read (415).
    @Sendable func upload(_ request: Request, context: HubRequestContext) async throws -> Response {
        let (publicKey, _) = try Self.sensorKey(context)
        guard let boundary = MultipartFormData.boundary(contentType: request.headers[.contentType]) else {
            throw SubstrateError.multipartRequired()
        }
        let limit = sensors.limits.maxBytes
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit + Self.framingAllowance)
        } catch is NIOTooManyBytesError {
            throw SubstrateError.uploadTooLarge(limit)
        }
        let form: MultipartFormData
        do {
            form = try MultipartFormData(body: Array(body.readableBytesView), boundary: boundary)
        } catch {
            throw SubstrateError.invalidMultipart(error.message)
        }
        guard let file = form["file"] else { throw SubstrateError.invalid("file", "The upload has a part named file: the content.") }
        let declared = form["file-type"].map { String(decoding: $0.body, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
        guard let contentType = (declared ?? file.contentType)?.lowercased(), SensorUploadMessage.isContentType(contentType) else {
            throw SubstrateError.invalid(
                "file-type",
                "Name the content's type (type/subtype, no parameters) in a file-type part or the file part's Content-Type."
            )
        }
        if let declared, let partType = file.contentType, partType.lowercased() != declared.lowercased() {
            throw SubstrateError.invalid("file-type", "The file-type part and the file part's Content-Type differ.")
        }
        guard let counterText = form["counter"].map({ String(decoding: $0.body, as: UTF8.self) }),
            counterText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let counter = UInt64(counterText)
        else { throw SubstrateError.invalid("counter", "The counter is a whole number from 1 to 2^63 - 1, in decimal.") }
        guard let signatureText = form["signature"].map({ String(decoding: $0.body, as: UTF8.self) }),
            let signature = HexText.decode(signatureText.trimmingCharacters(in: .whitespaces)), signature.count == 64
        else { throw SubstrateError.invalid("signature", "The signature is 64 bytes in hex, with or without 0x.") }
        let upload = SensorRegistry.Upload(
            sensor: publicKey,
            counter: counter,
            contentType: contentType,
            fileName: file.fileName.map { String($0.prefix(255)) },
            content: file.body,
            signature: signature
        )
        return try await sensors.upload(upload).response()
    }

    /// A page of uploads, newest first: `{"data": [...], "next_cursor": "<counter>" | null}`.
    @Sendable func uploads(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let (publicKey, address) = try Self.sensorKey(context)
        let limit = try QueryLimit.limit(request, maximum: 200)
        var before: Int64?
        if let cursor = request.uri.queryParameters["cursor"] {
            guard let value = Int64(String(cursor)), value > 0 else {
                throw SubstrateError.invalid("cursor", "A cursor is a next_cursor answered before.")
            }
            before = value
        }
        guard let page = try await sensors.uploads(of: publicKey, user: principal.userID, before: before, limit: limit) else {
            throw SubstrateError.sensorNotFound(address)
        }
        return try context.json(UploadPage(data: page, nextCursor: page.count == limit ? page.last.map { String($0.counter) } : nil))
    }

    struct UploadPage: Encodable {
        var data: [SensorUploadRepresentation]
        var nextCursor: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(data, forKey: .data)
            try container.encode(nextCursor, forKey: .nextCursor)
        }

        private enum Keys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    /// The content as the sensor sent it, with its type; the hash names it, so it is the ETag.
    @Sendable func download(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let (publicKey, _) = try Self.sensorKey(context)
        let hash = try Self.hash(context)
        let found = try await sensors.download(publicKey, hash: hash, user: principal.userID)
        let content = try found.content()
        var headers: HTTPFields = [
            .contentType: found.upload.contentType,
            .eTag: "\"0x\(HexText.encode(hash))\"",
            .cacheControl: "private, max-age=31536000, immutable",
        ]
        if let fileName = found.upload.fileName {
            let safe = String(fileName.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 && $0.value < 0x7F })
            headers[.contentDisposition] = "attachment; filename=\"\(safe)\""
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: content)))
    }

    @Sendable func anchor(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let (publicKey, _) = try Self.sensorKey(context)
        let hash = try Self.hash(context)
        return try await sensors.anchor(publicKey, hash: hash, by: principal.userID).response()
    }

    @Sendable func latest(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        return try context.json(["data": try await sensors.latestUploads(of: principal.userID, limit: try QueryLimit.limit(request, maximum: 200))])
    }

    /// The sensor a path names: its SS58 address (any prefix) or 0x public key.
    static func sensorKey(_ context: HubRequestContext) throws -> ([UInt8], String) {
        let address = try context.parameters.require("address")
        return (try SubstrateSignatureVerifier.publicKey(address), address)
    }

    /// An upload's content hash in a path: 64 hex digits, with or without 0x.
    static func hash(_ context: HubRequestContext) throws -> [UInt8] {
        let text = try context.parameters.require("hash")
        guard let hash = HexText.decode(text), hash.count == 32 else {
            throw SubstrateError.invalid("hash", "An upload's hash is its blake2b-256: 64 hex digits, with or without 0x.")
        }
        return hash
    }

}
