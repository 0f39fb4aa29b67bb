import Foundation

/// Names people read (a user's display name, an asset's or a chain's name): one rule for all, so a
/// payer who sees "Café Luna" on their phone sees what is stored, and nothing can be made to read
/// as something else.
///
/// The text is trimmed and normalised to NFC (so `e` + combining acute and `é` are one name).
/// Refused: control characters; format characters, which are invisible or reorder what follows
/// (the bidi overrides and isolates U+202A–U+202E and U+2066–U+2069, U+200E/U+200F, U+061C, zero
/// width space U+200B, non-joiner U+200C, word joiner U+2060, U+FEFF, the soft hyphen U+00AD, tag
/// characters); line and paragraph separators; private-use and unassigned code points; and the
/// blank-looking fillers (Hangul fillers, U+2800). A zero width joiner is allowed only inside an
/// emoji sequence (👩‍💻), where it is how the emoji is written.
public enum DisplayText {
    /// Why `text` was refused, for the error's detail.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var message: String
        public var description: String { "\(field): \(message)" }
    }

    /// The trimmed, NFC form of `input` if it is a name people may read, 1 to `maxLength`
    /// characters.
    /// - Throws: ``Refusal`` naming `field`.
    public static func name(_ input: String, field: String, maxLength: Int) throws -> String {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !text.isEmpty, text.count <= maxLength else {
            throw Refusal(field: field, message: "\(field) must be 1 to \(maxLength) characters")
        }
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where !isAllowed(scalar, at: index, in: scalars) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw Refusal(
                field: field,
                message: "\(field) must not contain invisible, control or direction-changing characters (found \(code))"
            )
        }
        return text
    }

    static func isAllowed(_ scalar: Unicode.Scalar, at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        if blankFillers.contains(scalar.value) { return false }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate:
            return false
        case .format:
            return scalar.value == 0x200D && joinsEmoji(at: index, in: scalars)
        default:
            return true
        }
    }

    /// A zero width joiner between two emoji (variation selectors and skin tones in between are
    /// part of the emoji before it).
    static func joinsEmoji(at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        var before = index - 1
        while before >= 0, isEmojiModifier(scalars[before]) { before -= 1 }
        let after = index + 1
        guard before >= 0, after < scalars.count else { return false }
        return isPictographic(scalars[before]) && isPictographic(scalars[after])
    }

    static func isPictographic(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isEmoji && scalar.value > 0xFF  // not the digits, # and * that are emoji too
    }

    static func isEmojiModifier(_ scalar: Unicode.Scalar) -> Bool {
        (0xFE00...0xFE0F).contains(scalar.value) || scalar.properties.isEmojiModifier
    }

    /// Letters that render as nothing at all: Hangul fillers, the braille blank.
    static let blankFillers: Set<UInt32> = [0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800]
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
