import Foundation
import Testing
import WalletJSON
import WalletVerifierTestSupport

@testable import ApplePayVerifier

/// The in-place reading of the usual token (`ApplePayToken.readUsual`) against the general reading
/// (strict JSON, then the fields): whatever the in-place reading accepts, the general one accepts too,
/// with an equal token; everything else is left to the general reading.
@Suite struct ApplePayTokenInPlaceTests {
    /// The general reading alone (a token parsed by the caller never reads in place).
    static func general(_ bytes: [UInt8]) -> ApplePayToken? {
        guard let object = (try? StrictJSON.parse(bytes))?.object else { return nil }
        return try? ApplePayToken(json: bytes, parsed: object)
    }

    static func expectConsistent(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let usual = ApplePayToken.readUsual(bytes) else { return }
        guard let general = general(bytes) else {
            Issue.record(
                "read in place, refused by the general reading: \(String(decoding: bytes.prefix(120), as: UTF8.self))", sourceLocation: sourceLocation
            )
            return
        }
        #expect(usual == general, sourceLocation: sourceLocation)
    }

    static func tokens() throws -> [[UInt8]] {
        var tokens: [[UInt8]] = []
        for merchant in [Fixture.ecMerchant, Fixture.rsaMerchant] {
            var builder = Fixture.builder(merchant)
            tokens.append(try builder.build().json())
            builder.applicationData = Array("order 1234".utf8)
            tokens.append(try builder.build().json())
        }
        tokens.append(try TestVectors.data("applepay/seatgeek-2014-ec/token.json"))
        return tokens
    }

    /// A whole PKPaymentToken (paymentData inside, paymentMethod and transactionIdentifier beside it).
    static func wrapped() throws -> [UInt8] { try TestVectors.data("applepay/processout-signature-only/token-ec.json") }

    @Test func theUsualTokensReadInPlaceAsTheyReadGenerally() throws {
        for token in try Self.tokens() {
            let usual = ApplePayToken.readUsual(token)
            #expect(usual != nil, "not read in place: \(String(decoding: token.prefix(80), as: UTF8.self))")
            #expect(usual == Self.general(token))
            // Through the public initializer too, which reads in place first.
            #expect(try ApplePayToken(json: token) == usual)
        }
        // The fixtures are written with "\/" in their base64 fields, as JSONSerialization writes them.
        #expect(try Self.tokens().contains { String(decoding: $0, as: UTF8.self).contains("\\/") })
        // A PKPaymentToken is read the general way.
        #expect(try ApplePayToken.readUsual(Self.wrapped()) == nil)
        #expect(try Self.general(Self.wrapped()) != nil)
        #expect(try ApplePayToken(json: Self.wrapped()).paymentMethod != nil)
    }

    /// Forms the in-place reading leaves to the general one, which accepts or refuses them.
    @Test func unusualFormsAreLeftToTheGeneralReading() throws {
        let token = try Fixture.builder().build().json()
        let text = String(decoding: token, as: UTF8.self)
        let object = try #require(try StrictJSON.parse(token).object)
        let header = try #require(object["header"]?.object)
        func json(_ members: [(String, String)]) -> [UInt8] {
            Array(("{" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}").utf8)
        }
        func quoted(_ value: StrictJSON.Value?) -> String { "\"" + (value?.string ?? "").replacingOccurrences(of: "/", with: "\\/") + "\"" }
        let headerText =
            "{" + header.members.map { "\"\($0.name)\": \(quoted($0.value))" }.joined(separator: ", ") + "}"
        let usual: [(String, String)] = [
            ("version", quoted(object["version"])), ("data", quoted(object["data"])), ("signature", quoted(object["signature"])),
            ("header", headerText),
        ]
        // Rewritten by hand, reordered, with whitespace: still the usual form.
        for members in [usual, usual.reversed()] {
            let bytes = json(members)
            #expect(ApplePayToken.readUsual(bytes) != nil)
            Self.expectConsistent(bytes)
        }
        let spaced = Array(
            (" \n\t{ " + text.dropFirst().replacingOccurrences(of: ",", with: " ,\r\n ").replacingOccurrences(of: ":", with: " : ") + " \n").utf8)
        #expect(ApplePayToken.readUsual(spaced) != nil)
        Self.expectConsistent(spaced)

        let unusual: [[UInt8]] = [
            json(usual + [("version", quoted(object["version"]))]),  // duplicate member
            json(usual + [("extra", "1")]),  // another member
            json(usual.filter { $0.0 != "signature" }),  // a member missing
            json(usual.map { $0.0 == "version" ? ($0.0, "\"EC_v\\u0031\"") : $0 }),  // another escape
            json(usual.map { $0.0 == "version" ? ($0.0, "\"EC_v2\"") : $0 }),  // an unknown version
            json(usual.map { $0.0 == "header" ? ($0.0, "{}") : $0 }),
            json(usual.map { $0.0 == "header" ? ($0.0, String(headerText.dropLast()) + ", \"wrappedKey\": \"AAAA\"}") : $0 }),
            json(usual.map { $0.0 == "header" ? ($0.0, String(headerText.dropLast()) + ", \"applicationData\": null}") : $0 }),
            json(usual.map { $0.0 == "header" ? ($0.0, String(headerText.dropLast()) + ", \"applicationData\": \"zz\"}") : $0 }),
            json(usual.map { $0.0 == "data" ? ($0.0, "\"QUJD\"") : $0 }),  // data shorter than the GCM tag
            json(usual.map { $0.0 == "data" ? ($0.0, "\"Q\u{E9}JD\"") : $0 }),  // non-ASCII
            json([("paymentData", json(usual).map { String(UnicodeScalar($0)) }.joined()), ("transactionIdentifier", "\"AB\"")]),
            token + Array(" x".utf8),  // trailing content
            Array(token.dropLast()),  // truncated
        ]
        for bytes in unusual {
            #expect(ApplePayToken.readUsual(bytes) == nil, "\(String(decoding: bytes.prefix(100), as: UTF8.self))")
        }
    }

    /// Random damage to real and fixture tokens: a byte changed, removed or repeated anywhere. The
    /// in-place reading may give up, but never reads a token the general reading refuses or reads
    /// differently.
    @Test func damagedTokensAreNeverReadDifferently() throws {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = Array("\"\\/{}[],: \n0Aa=+-\u{7F}".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var readInPlace = 0
        for token in try Self.tokens() + [Self.wrapped()] {
            for _ in 0..<400 {
                let bytes = damaged(token, with: interesting, using: &generator)
                if ApplePayToken.readUsual(bytes) != nil { readInPlace += 1 }
                Self.expectConsistent(bytes)
            }
        }
        // Damage inside a base64 field often leaves a token both readings accept (with other bytes).
        #expect(readInPlace > 0)
    }
}
