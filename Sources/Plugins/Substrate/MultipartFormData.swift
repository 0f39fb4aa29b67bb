/// A `multipart/form-data` body (RFC 7578, the framing of RFC 2046 §5.1) split into its parts:
/// how sensors send an upload, as Brainstem's app sends `file-type` and `file`.
///
/// The whole body is in memory already (the route collects it up to its size limit), so this
/// is a plain scan of bytes rather than a streaming parser; the project takes no multipart
/// package for one route. It is strict where leniency could make two readers disagree: one
/// `Content-Disposition: form-data` with a `name` per part, each name at most once, no
/// nested multiparts, and a closing delimiter.
struct MultipartFormData: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        var name: String
        var fileName: String?
        /// The part's own `Content-Type`, as sent.
        var contentType: String?
        var body: [UInt8]
    }

    /// Why a body is not the multipart it says it is.
    struct Failure: Error, Equatable {
        var message: String
    }

    static let maximumParts = 16
    static let maximumHeaderBytes = 8 << 10

    var parts: [Part]

    /// The part called `name`.
    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    /// The `boundary` parameter of a `multipart/form-data` content type, or `nil` for another type.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let (type, parameters) = headerValue(contentType)
        guard type.lowercased() == "multipart/form-data", let boundary = parameters["boundary"],
            (1...70).contains(boundary.utf8.count), boundary.utf8.last != 0x20
        else { return nil }
        return boundary
    }

    init(parts: [Part]) {
        self.parts = parts
    }

    init(body: [UInt8], boundary: String) throws(Failure) {
        let delimiter = Array("--\(boundary)".utf8)
        let nextDelimiter = [0x0D, 0x0A] + delimiter
        // The first delimiter opens the body or follows a preamble's CRLF.
        var index: Int
        if body.starts(with: delimiter) {
            index = delimiter.count
        } else if let found = Self.find(nextDelimiter, in: body, from: 0) {
            index = found + nextDelimiter.count
        } else {
            throw Failure(message: "no part starts with the boundary the Content-Type names")
        }
        var parts: [Part] = []
        while true {
            // After a delimiter: `--` closes the body, otherwise padding and CRLF open a part.
            if body[index...].starts(with: [0x2D, 0x2D]) { break }
            while index < body.count, body[index] == 0x20 || body[index] == 0x09 { index += 1 }
            guard body[index...].starts(with: [0x0D, 0x0A]) else { throw Failure(message: "a boundary line does not end with CRLF") }
            index += 2
            guard let headerEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: index - 2),
                headerEnd - index <= Self.maximumHeaderBytes
            else { throw Failure(message: "a part's headers do not end with an empty line within \(Self.maximumHeaderBytes) bytes") }
            let headers = headerEnd > index ? Array(body[index..<headerEnd]) : []
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(nextDelimiter, in: body, from: contentStart) else {
                throw Failure(message: "the body ends before its closing boundary")
            }
            guard parts.count < Self.maximumParts else { throw Failure(message: "more than \(Self.maximumParts) parts") }
            var part = try Self.part(headers: headers)
            part.body = contentEnd > contentStart ? Array(body[contentStart..<contentEnd]) : []
            guard !parts.contains(where: { $0.name == part.name }) else { throw Failure(message: "the part '\(part.name)' is sent twice") }
            parts.append(part)
            index = contentEnd + nextDelimiter.count
        }
        self.parts = parts
    }

    /// A part from its header lines: the name (and file name) from `Content-Disposition`, the
    /// type from `Content-Type`; other headers are ignored, as RFC 7578 §4.8 says.
    private static func part(headers: [UInt8]) throws(Failure) -> Part {
        var disposition: String?
        var contentType: String?
        guard let text = String(validating: headers, as: UTF8.self) else { throw Failure(message: "a part's headers are not UTF-8") }
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(message: "a part's header line has no ':'") }
            let value = String(line[line.index(after: colon)...]).trimmingSpaces
            switch line[..<colon].lowercased() {
            case "content-disposition": disposition = value
            case "content-type": contentType = value
            default: break
            }
        }
        guard let disposition else { throw Failure(message: "a part has no Content-Disposition") }
        let (kind, parameters) = headerValue(disposition)
        guard kind.lowercased() == "form-data", let name = parameters["name"], !name.isEmpty else {
            throw Failure(message: "a part's Content-Disposition is not form-data with a name")
        }
        return Part(name: name, fileName: parameters["filename"], contentType: contentType, body: [])
    }

    /// `value; key=token; key="quoted \" string"` split into the value and its parameters
    /// (keys lower-cased, the first of a repeated key kept).
    static func headerValue(_ text: String) -> (value: String, parameters: [String: String]) {
        var characters = Substring(text)
        var value = ""
        while let character = characters.first, character != ";" {
            value.append(character)
            characters.removeFirst()
        }
        var parameters: [String: String] = [:]
        while characters.first == ";" {
            characters.removeFirst()
            var key = ""
            while let character = characters.first, character != "=", character != ";" {
                key.append(character)
                characters.removeFirst()
            }
            var parameter = ""
            if characters.first == "=" {
                characters.removeFirst()
                characters = characters.drop { $0 == " " || $0 == "\t" }
                if characters.first == "\"" {
                    characters.removeFirst()
                    while let character = characters.first, character != "\"" {
                        characters.removeFirst()
                        if character == "\\", let escaped = characters.first {
                            parameter.append(escaped)
                            characters.removeFirst()
                        } else {
                            parameter.append(character)
                        }
                    }
                    if characters.first == "\"" { characters.removeFirst() }
                    characters = characters.drop { $0 != ";" }
                } else {
                    while let character = characters.first, character != ";" {
                        parameter.append(character)
                        characters.removeFirst()
                    }
                    parameter = parameter.trimmingSpaces
                }
            }
            let name = key.trimmingSpaces.lowercased()
            if !name.isEmpty, parameters[name] == nil { parameters[name] = parameter }
        }
        return (value.trimmingSpaces, parameters)
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start >= 0, haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { pattern in
                var index = start
                let last = bytes.count - pattern.count
                while index <= last {
                    if bytes[index] == first {
                        var matched = 1
                        while matched < pattern.count, bytes[index + matched] == pattern[matched] { matched += 1 }
                        if matched == pattern.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return String(String.UnicodeScalarView(scalars))
    }
}
