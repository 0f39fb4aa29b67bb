import Foundation
import Testing

@testable import HubKernel

@Suite("display text: names people read")
struct DisplayTextTests {
    @Test(
        "refuses invisible, control and direction-changing characters",
        arguments: [
            "\u{202E}evil\u{202C}", "pay\u{202D}me", "a\u{2066}b\u{2069}", "x\u{200E}y", "x\u{200F}y", "x\u{061C}y", "zero\u{200B}width",
            "non\u{200C}joiner", "word\u{2060}joiner", "\u{FEFF}bom", "soft\u{00AD}hyphen", "tab\there", "nl\u{0085}x", "line\u{2028}sep",
            "para\u{2029}sep", "private\u{E000}use", "tag\u{E0041}s", "filler\u{3164}", "\u{115F}hangul", "braille\u{2800}blank",
            "lonely\u{200D}joiner", "\u{200D}", "a\u{7F}b",
        ]
    )
    func refuses(_ name: String) {
        #expect(throws: DisplayText.Refusal.self) { try DisplayText.name(name, field: "display_name", maxLength: 100) }
    }

    @Test("keeps what people write, normalised to NFC and trimmed")
    func keeps() throws {
        #expect(try DisplayText.name("  Café Luna ", field: "n", maxLength: 100) == "Café Luna")
        // e + combining acute accent becomes the one precomposed é.
        #expect(try DisplayText.name("Cafe\u{301}", field: "n", maxLength: 100) == "Caf\u{E9}")
        for name in ["Zoë", "日本語の名前", "مرحبا", "שלום", "Ünïcödé 😀", "👩‍💻 Dev", "👨‍👩‍👧 family", "❤️ Love", "Ms. O'Neil-Smith"] {
            #expect(try DisplayText.name(name, field: "n", maxLength: 100) == name.precomposedStringWithCanonicalMapping)
        }
    }

    @Test("names the field and the character")
    func message() {
        #expect(
            throws: DisplayText.Refusal(
                field: "display_name",
                message: "display_name must not contain invisible, control or direction-changing characters (found U+202E)"
            )
        ) {
            try DisplayText.name("\u{202E}evil", field: "display_name", maxLength: 100)
        }
        #expect(throws: DisplayText.Refusal.self) { try DisplayText.name("   ", field: "n", maxLength: 100) }
        #expect(throws: DisplayText.Refusal.self) { try DisplayText.name(String(repeating: "a", count: 101), field: "n", maxLength: 100) }
    }
}

@Suite("asset units")
struct AssetUnitsTests {
    @Test(
        "minor units as a person reads them, exactly",
        arguments: [
            (UInt128(4_500), UInt8(2), "45.00"), (0, 2, "0.00"), (5, 3, "0.005"), (7, 0, "7"), (100, 2, "1.00"),
            (UInt128.max, 38, "3.40282366920938463463374607431768211455"), (UInt128.max, 0, "340282366920938463463374607431768211455"),
        ] as [(UInt128, UInt8, String)]
    )
    func format(amount: UInt128, scale: UInt8, text: String) {
        #expect(AssetUnits.format(amount, scale: scale) == text)
    }
}
