/// A parsed JSON document, as ``HubJSONDecoder`` reads it.
///
/// Numbers keep their text: each is converted only to the type a `Decodable` asks for, so a
/// 128-bit amount or a `UInt8` is exact or refused, never rounded through a `Double`.
enum JSONNode {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONNode])
    case object(JSONObject)

    /// What a type-mismatch error says was found.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object's members in the order they were sent, and what decoding did with them: which
/// members a type read and which keys it asked for (for ``StrictDecoding``'s unknown members).
final class JSONObject {
    let names: [String]
    let values: [JSONNode]
    /// Whether a `Decodable` read (or tested for) the member at each position.
    var read: [Bool]
    /// The keys types asked this object for, as they spell them (found or not).
    var asked: [String] = []
    /// Set when a type opens the object as a keyed container: only those objects are checked for
    /// unknown members (a free-form map reads every member anyway).
    var path: CodingPathNode?

    init(names: [String], values: [JSONNode]) {
        self.names = names
        self.values = values
        self.read = Array(repeating: false, count: names.count)
    }
}
