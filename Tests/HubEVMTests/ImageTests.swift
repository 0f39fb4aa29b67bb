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

@testable import HubEVM

extension EVMRailTests {
    @Suite("EVM rail: images of items and chat messages", .timeLimit(.minutes(4)))
    struct ImageTests {
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]

        /// A file of `size` bytes that starts with `signature` and differs by `seed`.
        static func file(_ signature: [UInt8], size: Int = 256, seed: UInt8 = 1) -> [UInt8] {
            signature + (0..<(size - signature.count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
        }

        static func id(_ bytes: [UInt8]) -> String { Hex.encode(sha256(bytes), prefix: false) }

        static func upload(
            _ client: any TestClientProtocol,
            _ bytes: [UInt8],
            type: String,
            as user: String = "alice",
            headers extra: HTTPFields = [:]
        ) async throws -> TestResponse {
            try await client.execute(
                uri: "/v1/rails/evm/images",
                method: .post,
                headers: bearer(user) + [.contentType: type] + extra,
                body: ByteBuffer(bytes: bytes)
            )
        }

        static func rows(_ hub: Hub) async throws -> Int64 {
            try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_images")?.int("n") ?? 0 }
        }

        @Test(
            "an upload reads back byte for byte with its type and ETag; the same bytes are one image; 304 for a client that has it",
            arguments: TestBackend.enabled
        )
        func uploadAndRead(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let bytes = Self.file(Self.png)
                let created = try await Self.upload(client, bytes, type: "image/png")
                #expect(created.status == .created, "\(created.text)")
                let id = Self.id(bytes)
                #expect(created.object["id"] as? String == id)
                #expect(created.object["content_type"] as? String == "image/png")
                #expect(created.object["size"] as? Int == bytes.count)
                #expect(created.headers[.location] == "/v1/rails/evm/images/\(id)")

                let shown = try await client.execute(uri: "/v1/rails/evm/images/\(id)", method: .get, headers: bearer("bob"))
                #expect(shown.status == .ok)
                #expect(Array(shown.body.readableBytesView) == bytes)
                #expect(shown.headers[.contentType] == "image/png")
                #expect(shown.headers[.eTag] == "\"\(id)\"")
                #expect(shown.headers[.cacheControl] == "public, max-age=31536000, immutable")

                // The same bytes again, by someone else and with parameters on the type: the same image.
                let again = try await Self.upload(client, bytes, type: "Image/PNG; name=x", as: "bob")
                #expect(again.status == .ok, "\(again.text)")
                #expect(again.object["id"] as? String == id)
                #expect(try await Self.rows(hub) == 1)

                for tag in ["\"\(id)\"", "W/\"\(id)\"", "\"other\", \"\(id)\"", "*"] {
                    let cached = try await client.execute(
                        uri: "/v1/rails/evm/images/\(id)",
                        method: .get,
                        headers: bearer("bob") + [.ifNoneMatch: tag]
                    )
                    #expect(cached.status == .notModified, "\(tag)")
                    #expect(cached.body.readableBytes == 0)
                    #expect(cached.headers[.eTag] == "\"\(id)\"")
                }
                let stale = try await client.execute(
                    uri: "/v1/rails/evm/images/\(id)",
                    method: .get,
                    headers: bearer("bob") + [.ifNoneMatch: "\"other\""]
                )
                #expect(stale.status == .ok)

                let unknown = String(repeating: "0", count: 64)
                for missing in [unknown, "not-an-id", id.uppercased()] {
                    let none = try await client.execute(
                        uri: "/v1/rails/evm/images/\(missing)",
                        method: .get,
                        headers: bearer("bob") + [.ifNoneMatch: "*"]
                    )
                    #expect(none.status == .notFound, "\(missing)")
                    #expect(none.object["code"] as? String == "image_not_found")
                }
                #expect(try await client.execute(uri: "/v1/rails/evm/images/\(id)", method: .get).status == .unauthorized)
                #expect(
                    try await client.execute(uri: "/v1/rails/evm/images", method: .post, headers: [.contentType: "image/png"]).status == .unauthorized
                )
            }
        }

        @Test("a wrong or unknown type and a file over 2 MiB are refused with their own code, and nothing is kept", arguments: TestBackend.enabled)
        func refusals(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let mismatch = try await Self.upload(client, Self.file(Self.jpeg), type: "image/png")
                #expect(mismatch.status == .unsupportedMediaType)
                #expect(mismatch.object["code"] as? String == "image_type_mismatch", "\(mismatch.text)")
                for type in ["image/svg+xml", "text/html", "application/octet-stream"] {
                    let refused = try await Self.upload(client, Self.file(Self.png), type: type)
                    #expect(refused.status == .unsupportedMediaType, "\(type)")
                    #expect(refused.object["code"] as? String == "unsupported_image_type", "\(type)")
                    #expect((refused.object["detail"] as? String)?.contains("image/png") == true)
                }
                let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
                #expect(try await Self.upload(client, Self.file(webp), type: "image/gif").status == .unsupportedMediaType)
                #expect(try await Self.rows(hub) == 0)

                // 2 MiB is taken; a byte more is not, with an Idempotency-Key too (whose layer reads the body first).
                let limit = 2 << 20
                let largest = try await Self.upload(client, Self.file(Self.png, size: limit), type: "image/png")
                #expect(largest.status == .created, "\(largest.text)")
                for extra: HTTPFields in [[:], [.idempotencyKey: "big"]] {
                    let tooLarge = try await Self.upload(client, Self.file(Self.png, size: limit + 1), type: "image/png", headers: extra)
                    #expect(tooLarge.status == .contentTooLarge)
                    #expect(tooLarge.object["code"] as? String == "image_too_large", "\(tooLarge.text)")
                }
                #expect(try await Self.rows(hub) == 1)
                // The other formats are taken by their signatures.
                #expect(try await Self.upload(client, Self.file(Self.jpeg), type: "image/jpeg").status == .created)
                #expect(try await Self.upload(client, Self.file(webp), type: "image/webp").status == .created)
                #expect(try await Self.upload(client, Self.file(Array("GIF89a".utf8)), type: "image/gif").status == .created)
            }
        }

        @Test("an item is minted with its images; a chat message carries one; unknown ids send and store nothing", arguments: TestBackend.enabled)
        func itemsAndChat(backend: TestBackend) async throws {
            try await withEVMHub(on: backend) { hub, client in
                let front = Self.file(Self.png, seed: 1)
                let back = Self.file(Self.jpeg, seed: 2)
                #expect(try await Self.upload(client, front, type: "image/png").status == .created)
                #expect(try await Self.upload(client, back, type: "image/jpeg").status == .created)
                let images = [Self.id(back), Self.id(front)]
                let unknown = Self.id(Self.file(Self.png, seed: 3))

                let refusals: [[String: Any]] = [
                    ["images": [unknown]],
                    ["images": [images[0], "not-an-id"]],
                    ["images": [images[0], images[0]]],
                    ["images": Array(repeating: images[0], count: 9)],
                ]
                for extra in refusals {
                    let refused = try await client.evm(.post, "/items", as: "alice", ["title": "Vase", "category": "ceramics"].merging(extra) { $1 })
                    #expect(refused.status == .unprocessableContent, "\(extra)")
                    #expect(refused.object["code"] as? String == "invalid_field")
                    #expect(refused.object["field"] as? String == "images", "\(refused.text)")
                }
                #expect(try await hub.database.read { try $0.queryFirst("SELECT count(*) AS n FROM evm_operations")?.int("n") } == 0)

                try await client.waitEVMChainsReady()
                let sent = try await client.evm(.post, "/items", as: "alice", ["title": "Vase", "category": "ceramics", "images": images])
                #expect(sent.status == .accepted, "\(sent.text)")
                let done = try await ItemMintTests.settled(try #require(sent.object["id"] as? String), as: "alice", client)
                let token = try #require((done["result"] as? [String: String])?["token_id"])
                let item = try #require(try await client.evm(.get, "/items/hub/\(token)", as: "bob").object["item"] as? [String: Any])
                #expect(item["images"] as? [String] == images)
                let listed = try #require(try await client.evm(.get, "/items?category=ceramics", as: "bob").object["data"] as? [[String: Any]])
                #expect(listed.first?["images"] as? [String] == images)
                // An item without images shows an empty list.
                let plain = try await ListingTests.mint(client, as: "alice")
                #expect((try await client.evm(.get, "/items/hub/\(plain)", as: "bob").object["item"] as? [String: Any])?["images"] as? [String] == [])

                let listing = try await ListingTests.run(
                    client,
                    "/listings",
                    as: "alice",
                    ["kind": "sale", "token_id": try #require(UInt64(token)), "price": ListingTests.coin]
                )
                let path = "/listings/hub/\(try #require((listing["result"] as? [String: String])?["listing_id"]))/messages"
                let photo = try await client.evm(.post, path, as: "bob", ["image": images[1]])
                #expect(photo.status == .created, "\(photo.text)")
                #expect(photo.object["image"] as? String == images[1])
                #expect(photo.object["text"] as? String == "")
                let both = try await client.evm(.post, path, as: "bob", ["text": "Like this one?", "image": images[0]])
                #expect(both.status == .created)
                let missing = try await client.evm(.post, path, as: "bob", ["text": "And this?", "image": unknown])
                #expect(missing.status == .unprocessableContent)
                #expect(missing.object["field"] as? String == "image", "\(missing.text)")
                let empty = try await client.evm(.post, path, as: "bob", ["text": " "])
                #expect(empty.object["field"] as? String == "text")
                #expect((empty.object["detail"] as? String)?.contains("image") == true)

                let thread = try #require(try await client.evm(.get, path, as: "alice").object["data"] as? [[String: Any]])
                #expect(thread.map { $0["image"] as? String } == [images[1], images[0]])
                #expect(thread.map { $0["text"] as? String } == ["", "Like this one?"])
                #expect(try await count(EVMEvents.chatMessage, in: hub) == 2)
            }
        }
    }
}
