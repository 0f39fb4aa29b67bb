import Foundation

/// The image formats the rail keeps, each known both by its media type and by its file's first
/// bytes: a declared type the bytes do not bear out is refused, so what is served back as
/// `image/png` is a PNG and never, say, HTML a browser might run.
enum ImageFormat: String, Sendable, CaseIterable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case webp = "image/webp"
    case gif = "image/gif"

    /// The format a `Content-Type` names (parameters and case ignored), or `nil` for any other.
    init?(contentType: String?) {
        guard let contentType else { return nil }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        self.init(rawValue: mediaType.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// Whether `bytes` start as a file of this format does (its signature, or "magic bytes").
    func matches(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        let bytes = Array(bytes.prefix(12))
        func starts(with signature: String, at offset: Int = 0) -> Bool {
            let signature = Array(signature.utf8)
            return bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        switch self {
        case .png: return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .jpeg: return bytes.starts(with: [0xFF, 0xD8, 0xFF])
        // A RIFF container (whose next four bytes are its length) holding WebP.
        case .webp: return starts(with: "RIFF") && starts(with: "WEBP", at: 8)
        case .gif: return starts(with: "GIF87a") || starts(with: "GIF89a")
        }
    }

    static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
