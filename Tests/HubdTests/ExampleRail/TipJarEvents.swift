import Foundation
import HubKernel

/// The tip jar's events. Types are dotted and owned by the rail (`tipjar.*`); `source` is the
/// context's `eventSource` (`/rails/tip-jar`); `subject` is the jar id, so a reader can follow one
/// jar; `data` is the same JSON the API returns for it.
enum TipJarEvents {
    static let jarOpened = "tipjar.jar.opened"
    static let jarTipped = "tipjar.jar.tipped"
    static let jarClosed = "tipjar.jar.closed"

    static func opened(_ jar: TipJar, source: String) throws -> NewEvent {
        try event(jarOpened, jar, data: JarRepresentation(jar), time: jar.createdAt, source: source)
    }

    static func tipped(_ jar: TipJar, tip: TipRecord, source: String) throws -> NewEvent {
        try event(
            jarTipped,
            jar,
            data: TippedData(jar: JarRepresentation(jar), tip: TipRepresentation(tip, asset: jar.asset)),
            time: tip.tippedAt,
            source: source
        )
    }

    static func closed(_ jar: TipJar, source: String) throws -> NewEvent {
        try event(jarClosed, jar, data: JarRepresentation(jar), time: jar.closedAt ?? jar.createdAt, source: source)
    }

    private struct TippedData: Encodable {
        var jar: JarRepresentation
        var tip: TipRepresentation
    }

    private static func event(_ type: String, _ jar: TipJar, data: some Encodable, time: LedgerTimestamp, source: String) throws -> NewEvent {
        NewEvent(type: type, source: source, subject: jar.id, data: try TipJarJSON.text(data), time: time)
    }
}

/// The API's JSON conventions for the plugin's own encoding (event data): `snake_case` members,
/// sorted so that equal payloads are equal text.
enum TipJarJSON {
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
