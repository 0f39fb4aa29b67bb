import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import HubSubstrate

/// A sensor's key as the test holds it, signing uploads as docs/substrate-sensors.md says.
struct SensorKey: Sendable {
    let keyPair: Sr25519.KeyPair

    init(seed: UInt8) { keyPair = try! Sr25519.keyPair(miniSecret: [UInt8](repeating: seed, count: 32)) }
    init(miniSecret: [UInt8]) throws { keyPair = try Sr25519.keyPair(miniSecret: miniSecret) }

    var address: String { try! SS58.encode(keyPair.publicKey, prefix: 42) }

    func signature(counter: UInt64, content: [UInt8], type: String) -> String {
        let message = SensorUploadMessage(sensor: keyPair.publicKey, counter: counter, contentHash: blake2b256(content), contentType: type)
        return "0x" + HexText.encode(try! Sr25519.sign(message.bytes, keyPair: keyPair))
    }
}

/// A multipart/form-data body of text fields and one file.
func multipart(_ fields: [(String, String)], file: [UInt8]?, fileName: String = "reading.json", boundary: String = "sensor-boundary-42") -> ByteBuffer
{
    var bytes: [UInt8] = Array("preamble, ignored\r\n".utf8)
    for (name, value) in fields {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }
    if let file {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\n\r\n".utf8)
        bytes += file + Array("\r\n".utf8)
    }
    bytes += Array("--\(boundary)--\r\n".utf8)
    return ByteBuffer(bytes: bytes)
}

extension TestClientProtocol {
    /// A sensor's upload of `content`, signed by `signer` (the sensor itself unless told).
    func sensorUpload(
        _ sensor: SensorKey,
        content: [UInt8],
        type: String = "application/json",
        counter: UInt64,
        signer: SensorKey? = nil,
        address: String? = nil
    ) async throws -> TestResponse {
        let signature = (signer ?? sensor).signature(counter: counter, content: content, type: type)
        return try await execute(
            uri: "/v1/rails/substrate/sensors/\(address ?? sensor.address)/uploads",
            method: .post,
            headers: [.contentType: "multipart/form-data; boundary=\"sensor-boundary-42\""],
            body: multipart([("file-type", type), ("counter", String(counter)), ("signature", signature)], file: content)
        )
    }
}

extension SubstrateRailTests {
    /// `/v1/rails/substrate/sensors`: sensors with DIDs, signed uploads, downloads, revocation.
    @Suite("Substrate rail: sensors", .timeLimit(.minutes(4)))
    struct SubstrateSensorTests {
        static let sensorCount: SQL = "SELECT count(*) AS n FROM substrate_sensors"
        static let uploadCount: SQL = "SELECT count(*) AS n FROM substrate_sensor_uploads"
        static let eventCount: SQL = "SELECT count(*) AS n FROM hub_events"
        static let reading = Array(String(repeating: "{\"t\": 21.5, \"unit\": \"C\"}\n", count: 40).utf8)

        @Test("register, upload signed readings, list, download, anchor and revoke", arguments: TestBackend.enabled)
        func flow(backend: TestBackend) async throws {
            try await withSubstrateHub(on: backend) { hub, client in
                let token = try await client.signIn(TestKey(seed: 1))

                // A sensor whose key the hub makes: its secret answered once, never stored answers.
                let made = try await client.substrate(
                    .post,
                    "/sensors",
                    token: token,
                    ["name": "Greenhouse 1", "attributes": [["name": "type", "value": "temperature"]]]
                )
                #expect(made.status == .created, "\(made.text)")
                #expect(made.headers[.cacheControl] == "no-store")
                let address = try #require(made.object["address"] as? String)
                let miniSecretHex = try #require(made.object["mini_secret"] as? String)
                let miniSecret = try #require(HexText.decode(miniSecretHex))
                let sensor = try SensorKey(miniSecret: miniSecret)
                #expect(sensor.address == address)
                let mnemonic = try #require(made.object["mnemonic"] as? String)
                #expect(try BIP39.substrateMiniSecret(mnemonic: mnemonic) == miniSecret)
                #expect(made.object["did"] as? String == "did:peaq:\(address)")
                #expect(made.object["kind"] as? String == "custodial")
                #expect(made.headers[.location] == "/v1/rails/substrate/sensors/\(address)")
                // Its DID attribute, signed by the sensor's own key (the DID's holder), verifies.
                let attributes = try #require(made.object["attributes"] as? [[String: Any]])
                #expect(attributes.count == 1)
                let proof = try #require(attributes.first?["proof"] as? [String: Any])
                try SubstrateDIDTests.checkProof(
                    proof,
                    expectedCall: SubstrateDIDTests.attributeCall(
                        0,
                        account: sensor.keyPair.publicKey,
                        name: "type",
                        value: Array("temperature".utf8),
                        validFor: nil
                    ),
                    signer: sensor.keyPair.publicKey,
                    nonce: 0
                )
                let sealed = try await hub.database.read { connection in
                    try connection.queryFirst("SELECT sealed_secret FROM substrate_sensors WHERE public_key = \(sensor.keyPair.publicKey)")?
                        .optionalBytes("sealed_secret")
                }
                #expect(sealed != nil && sealed != miniSecret)

                // A sensor that brings its key: its DID attributes signed by the owner's custodial wallet.
                let (_, wallet) = try await SubstrateDIDTests.custodialWallet(client, token: token)
                let brought = SensorKey(seed: 9)
                let registered = try await client.substrate(
                    .post,
                    "/sensors",
                    token: token,
                    ["name": "Door", "public_key": brought.address, "attributes": [["name": "model", "value_hex": "0x0102"]]]
                )
                #expect(registered.status == .created, "\(registered.text)")
                #expect(registered.object["mnemonic"] == nil)
                #expect(registered.object["kind"] as? String == "external")
                #expect(registered.headers[.cacheControl] == nil)
                let broughtProof = try #require((registered.object["attributes"] as? [[String: Any]])?.first?["proof"] as? [String: Any])
                #expect(broughtProof["signer"] as? String == "0x" + HexText.encode(wallet.publicKey))
                // Registering it again answers it.
                let again = try await client.substrate(.post, "/sensors", token: token, ["name": "Door", "public_key": brought.address])
                #expect(again.status == .ok, "\(again.text)")

                // Uploads: signed by the sensor, no user token.
                let first = try await client.sensorUpload(sensor, content: Self.reading, counter: 1)
                #expect(first.status == .created, "\(first.text)")
                let hash = "0x" + HexText.encode(blake2b256(Self.reading))
                #expect(first.object["hash"] as? String == hash)
                #expect(first.object["size"] as? Int == Self.reading.count)
                #expect(first.object["file_name"] as? String == "reading.json")
                let stored = try #require(first.object["stored_size"] as? Int)
                #expect(stored < Self.reading.count / 4)
                // The same upload again (a lost answer) is the one kept.
                let retried = try await client.sensorUpload(sensor, content: Self.reading, counter: 1)
                #expect(retried.status == .ok, "\(retried.text)")
                let csv = Array("time,t\n1,21.5\n".utf8)
                let second = try await client.sensorUpload(sensor, content: csv, type: "text/csv", counter: 1_700_000_000_000)
                #expect(second.status == .created, "\(second.text)")
                #expect(try await count(Self.uploadCount, in: hub) == 2)
                // zstd at rest.
                let content = try await hub.database.read { connection in
                    try connection.queryFirst("SELECT content FROM substrate_sensor_uploads WHERE counter = 1")?.bytes("content")
                }
                #expect(try Zstd.decompress(try #require(content)) == Self.reading)

                // Lists and download.
                let page = try await client.substrate(.get, "/sensors/\(address)/uploads?limit=1", token: token)
                #expect(page.status == .ok, "\(page.text)")
                #expect((page.object["data"] as? [[String: Any]])?.first?["content_type"] as? String == "text/csv")
                let cursor = try #require(page.object["next_cursor"] as? String)
                let rest = try await client.substrate(.get, "/sensors/\(address)/uploads?limit=1&cursor=\(cursor)", token: token)
                #expect((rest.object["data"] as? [[String: Any]])?.first?["hash"] as? String == hash, "\(rest.text)")
                let download = try await client.substrate(.get, "/sensors/\(address)/uploads/\(hash)", token: token)
                #expect(download.status == .ok)
                #expect(download.headers[.contentType] == "application/json")
                #expect(Array(download.body.readableBytesView) == Self.reading)
                let mine = try await client.substrate(.get, "/sensors", token: token)
                let rows = try #require(mine.object["data"] as? [[String: Any]])
                #expect(rows.map { $0["name"] as? String } == ["Greenhouse 1", "Door"])
                #expect(rows.first?["uploads"] as? Int == 2)
                let detail = try await client.substrate(.get, "/sensors/\(sensor.address)", token: token)
                #expect((detail.object["latest_uploads"] as? [[String: Any]])?.count == 2, "\(detail.text)")
                #expect((detail.object["attributes"] as? [[String: Any]])?.count == 1)
                let latest = try await client.substrate(.get, "/sensor-uploads", token: token)
                #expect((latest.object["data"] as? [[String: Any]])?.count == 2, "\(latest.text)")

                // Anchor the hash in the sensor's DID; again answers the attribute.
                let anchored = try await client.substrate(.post, "/sensors/\(address)/uploads/\(hash)/anchor", token: token)
                #expect(anchored.status == .created, "\(anchored.text)")
                #expect(anchored.object["name"] as? String == String(hash.dropFirst(2)))
                #expect(anchored.object["value"] as? String == "{\"content_type\":\"application/json\",\"counter\":1,\"size\":\(Self.reading.count)}")
                let reAnchored = try await client.substrate(.post, "/sensors/\(address)/uploads/\(hash)/anchor", token: token)
                #expect(reAnchored.status == .ok, "\(reAnchored.text)")
                let did = try await client.substrate(.get, "/dids/did:peaq:\(address)/attributes/\(hash.dropFirst(2))", token: token)
                #expect(did.status == .ok, "\(did.text)")

                // Revoke: later uploads refused, history kept.
                let revoked = try await client.substrate(.delete, "/sensors/\(address)", token: token)
                #expect(revoked.status == .ok, "\(revoked.text)")
                #expect(revoked.object["status"] as? String == "revoked")
                #expect(try await client.substrate(.delete, "/sensors/\(address)", token: token).status == .ok)
                let late = try await client.sensorUpload(sensor, content: csv, type: "text/csv", counter: 1_800_000_000_000)
                #expect(late.status == .gone)
                #expect(late.object["code"] as? String == "sensor_revoked")
                #expect(try await client.substrate(.get, "/sensors/\(address)/uploads/\(hash)", token: token).status == .ok)

                #expect(try await count(Self.uploadCount, in: hub) == 2)
                #expect(try await events(SubstrateEvents.sensorRegistered, in: hub) == 2)
                #expect(try await events(SubstrateEvents.sensorUploaded, in: hub) == 2)
                #expect(try await events(SubstrateEvents.sensorAnchored, in: hub) == 1)
                #expect(try await events(SubstrateEvents.sensorRevoked, in: hub) == 1)
                #expect(try await events(SubstrateEvents.didAttributeAdded, in: hub) == 3)
            }
        }

        @Test("wrong signatures, replays, oversize and wrong types, another's sensor: clear errors, nothing changed", arguments: TestBackend.enabled)
        func refusals(backend: TestBackend) async throws {
            let config = "{\"sensor_max_upload_bytes\": 1024, \"sensor_upload_types\": [\"application/json\", \"text/csv\"]}"
            try await withSubstrateHub(on: backend, config: config) { hub, client in
                let alice = try await client.signIn(TestKey(seed: 1))
                let bob = try await client.signIn(TestKey(seed: 2))
                let sensor = SensorKey(seed: 5)
                let registered = try await client.substrate(.post, "/sensors", token: alice, ["name": "Meter", "public_key": sensor.address])
                #expect(registered.status == .created, "\(registered.text)")
                let ok = try await client.sensorUpload(sensor, content: Array("{}".utf8), counter: 10)
                #expect(ok.status == .created, "\(ok.text)")
                let hash = "0x" + HexText.encode(blake2b256(Array("{}".utf8)))

                let sensors = try await count(Self.sensorCount, in: hub)
                let uploads = try await count(Self.uploadCount, in: hub)
                let eventsBefore = try await count(Self.eventCount, in: hub)
                let body = Array("{\"t\": 1}".utf8)

                func expectRefused(_ response: TestResponse, _ status: HTTPResponse.Status, _ code: String, _ label: String) {
                    #expect(response.status == status, "\(label): \(response.text)")
                    #expect(response.object["code"] as? String == code, "\(label): \(response.text)")
                }
                expectRefused(
                    try await client.sensorUpload(sensor, content: body, counter: 11, signer: SensorKey(seed: 6)),
                    .unauthorized,
                    "invalid_signature",
                    "signed by another key"
                )
                // A signature over other bytes: the type swapped under it.
                let swapped = try await client.execute(
                    uri: "/v1/rails/substrate/sensors/\(sensor.address)/uploads",
                    method: .post,
                    headers: [.contentType: "multipart/form-data; boundary=sensor-boundary-42"],
                    body: multipart(
                        [
                            ("file-type", "text/csv"), ("counter", "11"),
                            ("signature", sensor.signature(counter: 11, content: body, type: "application/json")),
                        ],
                        file: body
                    )
                )
                expectRefused(swapped, .unauthorized, "invalid_signature", "type swapped")
                expectRefused(try await client.sensorUpload(sensor, content: body, counter: 10), .conflict, "counter_replayed", "counter reused")
                expectRefused(try await client.sensorUpload(sensor, content: body, counter: 9), .conflict, "counter_replayed", "counter lower")
                expectRefused(
                    try await client.sensorUpload(sensor, content: [UInt8](repeating: 0x20, count: 1025), counter: 12),
                    .contentTooLarge,
                    "upload_too_large",
                    "oversize file"
                )
                expectRefused(
                    try await client.sensorUpload(sensor, content: [UInt8](repeating: 0x20, count: 40_000), counter: 12),
                    .contentTooLarge,
                    "upload_too_large",
                    "oversize body"
                )
                expectRefused(
                    try await client.sensorUpload(sensor, content: body, type: "image/png", counter: 12),
                    .unsupportedMediaType,
                    "unsupported_upload_type",
                    "type not allowed"
                )
                let notMultipart = try await client.execute(
                    uri: "/v1/rails/substrate/sensors/\(sensor.address)/uploads",
                    method: .post,
                    headers: jsonHeaders,
                    body: ByteBuffer(bytes: body)
                )
                expectRefused(notMultipart, .unsupportedMediaType, "multipart_required", "JSON body")
                let unclosed = try await client.execute(
                    uri: "/v1/rails/substrate/sensors/\(sensor.address)/uploads",
                    method: .post,
                    headers: [.contentType: "multipart/form-data; boundary=other"],
                    body: multipart([("counter", "12")], file: body)
                )
                expectRefused(unclosed, .unprocessableContent, "invalid_multipart", "wrong boundary")
                let unknown = SensorKey(seed: 8)
                expectRefused(try await client.sensorUpload(unknown, content: body, counter: 1), .notFound, "sensor_not_found", "unregistered sensor")

                // Another user's sensor: not theirs to read, revoke, anchor or register.
                expectRefused(try await client.substrate(.get, "/sensors/\(sensor.address)", token: bob), .notFound, "sensor_not_found", "bob reads")
                expectRefused(
                    try await client.substrate(.get, "/sensors/\(sensor.address)/uploads", token: bob),
                    .notFound,
                    "sensor_not_found",
                    "bob lists"
                )
                expectRefused(
                    try await client.substrate(.get, "/sensors/\(sensor.address)/uploads/\(hash)", token: bob),
                    .notFound,
                    "sensor_not_found",
                    "bob downloads"
                )
                expectRefused(
                    try await client.substrate(.delete, "/sensors/\(sensor.address)", token: bob),
                    .notFound,
                    "sensor_not_found",
                    "bob revokes"
                )
                expectRefused(
                    try await client.substrate(.post, "/sensors/\(sensor.address)/uploads/\(hash)/anchor", token: bob),
                    .notFound,
                    "sensor_not_found",
                    "bob anchors"
                )
                expectRefused(
                    try await client.substrate(.post, "/sensors", token: bob, ["name": "Mine", "public_key": sensor.address]),
                    .conflict,
                    "sensor_taken",
                    "bob registers alice's sensor"
                )
                // Alice has no custodial wallet: a brought key's attributes cannot be signed.
                expectRefused(
                    try await client.substrate(.post, "/sensors/\(sensor.address)/uploads/\(hash)/anchor", token: alice),
                    .unprocessableContent,
                    "custodial_key_required",
                    "anchor without a signer"
                )
                expectRefused(
                    try await client.substrate(
                        .post,
                        "/sensors",
                        token: alice,
                        ["name": "Other", "public_key": SensorKey(seed: 7).address, "attributes": [["name": "type", "value": "x"]]]
                    ),
                    .unprocessableContent,
                    "custodial_key_required",
                    "attributes without a signer"
                )
                expectRefused(
                    try await client.substrate(
                        .post,
                        "/sensors",
                        token: alice,
                        ["name": "Other", "attributes": [["name": String(repeating: "n", count: 65), "value": "x"]]]
                    ),
                    .unprocessableContent,
                    "attribute_name_exceed_max64",
                    "long attribute name"
                )
                expectRefused(
                    try await client.substrate(.post, "/sensors", token: alice, ["name": "", "public_key": SensorKey(seed: 7).address]),
                    .unprocessableContent,
                    "invalid_field",
                    "empty name"
                )
                expectRefused(
                    try await client.substrate(.post, "/sensors", token: alice, ["name": "X", "public_key": "5NotAnAddress"]),
                    .unprocessableContent,
                    "invalid_address",
                    "bad key"
                )
                expectRefused(
                    try await client.substrate(.get, "/sensors/\(sensor.address)/uploads/0x1234", token: alice),
                    .unprocessableContent,
                    "invalid_field",
                    "bad hash"
                )
                expectRefused(
                    try await client.substrate(.get, "/sensors/\(sensor.address)/uploads/\(String(repeating: "ab", count: 32))", token: alice),
                    .notFound,
                    "upload_not_found",
                    "unknown hash"
                )
                #expect(try await client.substrate(.post, "/sensors", token: alice, ["name": "X"]).status == .created)
                #expect(try await client.execute(uri: "/v1/rails/substrate/sensors", method: .get).status == .unauthorized)

                #expect(try await count(Self.sensorCount, in: hub) == sensors + 1)
                #expect(try await count(Self.uploadCount, in: hub) == uploads)
                #expect(try await count(Self.eventCount, in: hub) == eventsBefore + 1)
                let row = try await hub.database.read { connection in
                    try connection.queryFirst("SELECT counter FROM substrate_sensors WHERE public_key = \(sensor.keyPair.publicKey)")?.int("counter")
                }
                #expect(row == 10)
            }
        }

        @Test("the signed message's bytes, as the docs lay them out")
        func messageBytes() throws {
            let key = SensorKey(seed: 3)
            let message = SensorUploadMessage(
                sensor: key.keyPair.publicKey,
                counter: 0x0102,
                contentHash: [UInt8](repeating: 0xAB, count: 32),
                contentType: "text/csv"
            )
            let expected: [UInt8] =
                Array("hubd-sensor-upload-v1".utf8) + [0] + key.keyPair.publicKey + [0x02, 0x01, 0, 0, 0, 0, 0, 0]
                + [UInt8](repeating: 0xAB, count: 32) + [8] + Array("text/csv".utf8)
            #expect(message.bytes == expected)
            #expect(message.bytes.count == 22 + 32 + 8 + 32 + 1 + 8)
            let signature = try Sr25519.sign(message.bytes, keyPair: key.keyPair)
            #expect(message.verify(signature))
            var other = message
            other.counter += 1
            #expect(!other.verify(signature))
            // A signature made by PyPI's py-sr25519-bindings 0.2.4 over the same layout, built in
            // Python from the docs (`sr25519.pair_from_seed(bytes([3]) * 32)`, counter
            // 1700000000000, content `{"t": 21.5}`, type application/json).
            let python = SensorUploadMessage(
                sensor: key.keyPair.publicKey,
                counter: 1_700_000_000_000,
                contentHash: blake2b256(Array("{\"t\": 21.5}".utf8)),
                contentType: "application/json"
            )
            #expect(HexText.encode(key.keyPair.publicKey) == "8ee504148e75c34e8f051899b3c6e4241ff18dc1c9211260b6a6a434bedb485f")
            let pythonSignature = try #require(
                HexText.decode(
                    "7690f87d8e5715ad59921163ecb38fad4de5889720f158ae6cbba6a64cae3a3a89bc63fe91e664806d4bb25ff3480a0ee039311de786b36f561367bdaf196789"
                )
            )
            #expect(python.verify(pythonSignature))
            #expect(SensorUploadMessage.isContentType("application/vnd.api+json"))
            for bad in ["", "text", "Text/CSV", "text/csv; charset=utf-8", "a/b/c", "/csv", String(repeating: "a", count: 126) + "/b"] {
                #expect(!SensorUploadMessage.isContentType(bad), "\(bad)")
            }
        }

        @Test("multipart bodies: parts, quoted parameters, empty parts, and malformed ones refused")
        func multipartParsing() throws {
            #expect(MultipartFormData.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
            #expect(MultipartFormData.boundary(contentType: "Multipart/Form-Data; charset=x; boundary=\"a b;c\"") == "a b;c")
            #expect(MultipartFormData.boundary(contentType: "multipart/mixed; boundary=abc") == nil)
            #expect(MultipartFormData.boundary(contentType: "multipart/form-data") == nil)

            let body = Array(
                ("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none\r\n"
                    + "--b  \r\ncontent-disposition: form-data; name=\"file\"; filename=\"x \\\"y\\\".bin\"\r\nContent-Type: image/png\r\n\r\n\r\n--\r\n"
                    + "--b\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--b--").utf8
            )
            let form = try MultipartFormData(body: body, boundary: "b")
            #expect(form.parts.map(\.name) == ["a", "file", "empty"])
            #expect(form["a"]?.body == Array("one".utf8))
            #expect(form["file"]?.fileName == "x \"y\".bin")
            #expect(form["file"]?.contentType == "image/png")
            #expect(form["file"]?.body == Array("\r\n--".utf8))
            #expect(form["empty"]?.body == [])

            let malformed = [
                "no boundary at all",
                "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunclosed",
                "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--",
                "--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--b--",
                "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\ny\r\n--b--",
                "--bx\r\n",
            ]
            for text in malformed {
                #expect(throws: MultipartFormData.Failure.self, "\(text)") { try MultipartFormData(body: Array(text.utf8), boundary: "b") }
            }
        }
    }
}
