import Foundation
import HubKernel
import Hummingbird
import NIOCore

/// `/v1/rails/evm/images…`: uploading an image (the raw file as the body) and reading it back
/// under its content address, cacheable for good.
struct ImagesController: Sendable {
    let images: ImageStore

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("images", use: upload)
        group.get("images/{sha256}", use: show)
    }

    /// 201 with the new image, or 200 with the one already kept with the same bytes.
    @Sendable func upload(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let contentType = request.headers[.contentType]
        // An unknown type is refused before the body is read, an oversize body as soon as it
        // passes the limit.
        guard ImageFormat(contentType: contentType) != nil else { throw EVMError.unsupportedImageType(contentType) }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: ImageStore.maximumBytes)
        } catch is NIOTooManyBytesError {
            throw EVMError.imageTooLarge
        }
        let (image, created) = try await images.store(Array(body.readableBytesView), contentType: contentType, by: principal.userID)
        return try context.json(image, status: created ? .created : .ok, headers: [.location: "/v1/rails/evm/images/\(image.id)"])
    }

    /// The image's bytes with their type. The id is the hash of the bytes, so it is the strong
    /// `ETag` and the response never changes: `immutable`, and 304 to a client that has it.
    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let id = context.parameters.get("sha256") ?? ""
        let etag = "\"\(id)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=31536000, immutable"]
        if Self.matches(request.headers[values: .ifNoneMatch], etag: etag), try await images.exists(id) {
            return Response(status: .notModified, headers: headers)
        }
        guard let (image, bytes) = try await images.image(id) else {
            throw EVMError(kind: .notFound, errorCode: "image_not_found", message: "No such image.")
        }
        headers[.contentType] = image.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Whether `If-None-Match` names `etag` (or is `*`), comparing weakly as RFC 9110 §13.1.2 says.
    static func matches(_ fields: [String], etag: String) -> Bool {
        fields.flatMap { $0.split(separator: ",") }.contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
