import Testing

@testable import WebIdentity

/// `OpenID4VPResponse.printable` returns short printable ASCII as it is; everything it returns must
/// be what the character-by-character form gives.
@Suite struct PrintableTextTests {
    static func reference(_ text: String) -> String {
        String(text.unicodeScalars.prefix(40).map { $0.value >= 0x20 && $0.value < 0x7f && $0 != "\"" ? Character($0) : "?" })
    }

    @Test func sameAsCharacterByCharacter() {
        var texts = ["", "mdl", "org.iso.18013.5.1.mDL", "a\"b", "tab\there", "é", "e\u{301}", "\u{7F}", "\u{1F}", "😀x", "a\r\nb"]
        texts.append(String(repeating: "x", count: 40))
        texts.append(String(repeating: "x", count: 41))
        texts.append(String(repeating: "é", count: 41))
        for value in 0..<0x80 { texts.append("id" + String(UnicodeScalar(UInt8(value)))) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...45, using: &random)
            let scalars = (0..<length).map { _ in UnicodeScalar(UInt8.random(in: 0...0x9F, using: &random)) }
            texts.append(String(String.UnicodeScalarView(scalars)))
        }
        for text in texts {
            #expect(OpenID4VPResponse.printable(text) == Self.reference(text), "\(text.debugDescription)")
            #expect(Array(OpenID4VPResponse.printable(text).utf8) == Array(Self.reference(text).utf8))
        }
    }
}
