import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The console's static files (JavaScript modules, CSS, icons) read once from the module's
/// resource bundle and served under one versioned prefix, `/admin/static/<version>/…`.
///
/// The version is a hash of every file together: JavaScript modules import each other with
/// relative URLs, so a per-file hash would leave the imports unversioned; one hash for the set
/// makes every URL change whenever any file does, which is what lets the answers be cached for a
/// year as immutable. A request for another version is 404, never stale content under a new name.
struct ConsoleAssets: Sendable {
    struct File: Sendable {
        var contentType: String
        var bytes: ByteBuffer
    }

    /// Relative path (`js/app.js`) → file.
    let files: [String: File]
    /// 16 hex digits of FNV-1a over the files' paths and contents. Not a security hash: it only has
    /// to change when the files do (there is no adversary choosing the files).
    let version: String

    init(directory: URL) throws {
        var files: [String: File] = [:]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let base = directory.standardizedFileURL.path
        for relative in (try FileManager.default.subpathsOfDirectory(atPath: base)).sorted() {
            var isDirectory: ObjCBool = false
            let path = base + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard let contentType = Self.contentType(of: relative) else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for byte in Array(relative.utf8) + [0] + Array(data) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            files[relative] = File(contentType: contentType, bytes: ByteBuffer(bytes: data))
        }
        self.files = files
        self.version = String(hash, radix: 16).leftPadded(to: 16)
    }

    /// Types of the files the console ships; anything else in the folder is not served.
    static func contentType(of path: String) -> String? {
        switch path.split(separator: ".").last {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        default: nil
        }
    }

    /// The file's response: cached for a year and never revalidated (the URL changes with the content).
    func response(version: String, path: String) -> Response? {
        guard version == self.version, let file = files[path] else { return nil }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.contentType,
                .cacheControl: "public, max-age=31536000, immutable",
                .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: file.bytes)
        )
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
