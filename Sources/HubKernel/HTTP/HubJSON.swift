import Foundation

/// The JSON conventions of the API (DESIGN §3.6): `snake_case` members, no floats for money.
enum HubJSON {
    /// The largest request body accepted, 1 MiB: a 10,000-transfer batch fits with room to spare.
    static let maximumBodyBytes = 1 << 20

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// Keys sorted: the same value always encodes to the same bytes, so a reply recorded with an
    /// `Idempotency-Key` inside a unit of work equals the one the handler sends.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }
}
