import Crypto
import Foundation
import Testing
import WalletEncoding
import WalletJSON

@testable import WalletJOSE

/// `JWE(compact:)` reads its parts where the text is (found with `memchr`, decoded from the UTF-8
/// bytes); the reader it replaced split the text into substrings first, byte by byte, and decoded
/// each substring. Kept here as the reference, both must give the same JWE or the same error (code
/// and message) for valid, unusual and mutated texts.
@Suite struct JWEDifferentialTests {
    /// What a reading gives: every field, or the error.
    struct Outcome: Equatable {
        var header = ""
        var encryption = ""
        var keyID: String?
        var epk: [UInt8] = []
        var apu: [UInt8] = []
        var apv: [UInt8] = []
        var iv: [UInt8] = []
        var ciphertext: [UInt8] = []
        var tag: [UInt8] = []
        var error: JOSEError?
    }

    static func outcome(_ compact: String) -> Outcome {
        do {
            let jwe = try JWE(compact: compact)
            return Outcome(
                header: jwe.protectedHeaderText, encryption: jwe.encryption.rawValue, keyID: jwe.keyID,
                epk: Array(jwe.ephemeralKey.x963Representation), apu: jwe.agreementPartyUInfo, apv: jwe.agreementPartyVInfo, iv: jwe.iv,
                ciphertext: jwe.ciphertext, tag: jwe.tag)
        } catch {
            return Outcome(error: error)
        }
    }

    /// The previous reader, step for step.
    static func reference(_ compact: String) -> Outcome {
        func parts(_ compact: String) -> [Substring] {
            var text = compact
            let dots: [Int] = text.withUTF8 { bytes in
                var found: [Int] = []
                var offset = 0
                while offset < bytes.count, found.count < 5 {
                    if bytes[offset] == UInt8(ascii: ".") { found.append(offset) }
                    offset += 1
                }
                return found
            }
            let utf8 = compact.utf8
            var parts: [Substring] = []
            var start = utf8.startIndex
            for dot in dots {
                let end = utf8.index(utf8.startIndex, offsetBy: dot)
                parts.append(Substring(utf8[start..<end]))
                start = utf8.index(after: end)
            }
            parts.append(Substring(utf8[start...]))
            return parts
        }
        func decode(_ text: Substring, _ part: String) throws(JOSEError) -> [UInt8] {
            if text.isEmpty { return [] }
            guard let bytes = Base64.decodeURLUnpadded(Array(text.utf8).withUnsafeBufferPointer({ UnsafeBufferPointer(rebasing: $0[...]) }))
            else {
                throw JOSEError(.invalidBase64URL, "The \(part) is not unpadded base64url (RFC 7515 §2: A–Z a–z 0–9 - _ only, no '=' or whitespace).")
            }
            return bytes
        }
        do throws(JOSEError) {
            guard compact.utf8.count <= JWE.maximumCompactLength else {
                throw JOSEError(.malformedCompact, "The JWE is larger than \(JWE.maximumCompactLength) bytes.")
            }
            let parts = parts(compact)
            guard parts.count == 5 else {
                throw JOSEError(
                    .malformedCompact,
                    "A compact JWE has 5 dot-separated parts (header.encryptedKey.iv.ciphertext.tag); this one has \(parts.count > 5 ? "more than 5" : String(parts.count))."
                )
            }
            let header = try JOSEHeader.parse(try decode(parts[0], "JWE protected header"), what: "JWE protected header")
            guard let alg = header["alg"]?.string else { throw JOSEError(.malformedHeader, "The JWE protected header has no alg string.") }
            guard alg == "ECDH-ES" else {
                throw JOSEError(
                    .unsupportedAlgorithm,
                    "The JWE alg is \"\(JOSEHeader.printable(alg))\"; only ECDH-ES (direct key agreement, RFC 7518 §4.6) is accepted.")
            }
            guard let encText = header["enc"]?.string else { throw JOSEError(.malformedHeader, "The JWE protected header has no enc string.") }
            guard let encryption = JWEContentEncryption(rawValue: encText) else {
                throw JOSEError(
                    .unsupportedEncryption,
                    "The JWE enc is \"\(JOSEHeader.printable(encText))\"; the supported values are \(JWEContentEncryption.supportedList).")
            }
            guard header["zip"] == nil else {
                throw JOSEError(.unsupportedHeader, "The JWE protected header has zip; compressed plaintext is refused, encrypt it uncompressed.")
            }
            var keyID: String?
            if let kid = header["kid"] {
                guard let text = kid.string else { throw JOSEError(.malformedHeader, "The JWE kid is \(kid.typeName), not a string.") }
                keyID = text
            }
            guard let epkObject = header["epk"]?.object else {
                throw JOSEError(.malformedHeader, "The JWE protected header has no epk object (the sender's ephemeral P-256 public key).")
            }
            let epk = try JWK(object: epkObject, name: "the JWE epk")
            func info(_ name: String) throws(JOSEError) -> [UInt8] {
                guard let value = header[name] else { return [] }
                guard let text = value.string else { throw JOSEError(.malformedHeader, "The JWE \(name) is \(value.typeName), not a string.") }
                return try decode(Substring(text), "JWE \(name) header member")
            }
            let apu = try info("apu")
            let apv = try info("apv")
            guard parts[1].isEmpty else {
                throw JOSEError(.unsupportedHeader, "The JWE has an encrypted key; with ECDH-ES (direct key agreement) that part must be empty.")
            }
            let iv = try decode(parts[2], "JWE initialization vector")
            guard iv.count == 12 else { throw JOSEError(.invalidBase64URL, "The JWE initialization vector is \(iv.count) bytes; AES-GCM uses 12.") }
            let ciphertext = try decode(parts[3], "JWE ciphertext")
            let tag = try decode(parts[4], "JWE authentication tag")
            guard tag.count == 16 else { throw JOSEError(.invalidBase64URL, "The JWE authentication tag is \(tag.count) bytes; AES-GCM uses 16.") }
            return Outcome(
                header: String(parts[0]), encryption: encryption.rawValue, keyID: keyID, epk: Array(epk.publicKey.x963Representation), apu: apu,
                apv: apv, iv: iv, ciphertext: ciphertext, tag: tag)
        } catch {
            return Outcome(error: error)
        }
    }

    static func expectAgreement(_ compact: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let new = outcome(compact)
        let old = reference(compact)
        #expect(new == old, "\(compact.prefix(120).debugDescription)", sourceLocation: sourceLocation)
        // Errors are equal by code; the messages must be the same too.
        #expect(new.error?.message == old.error?.message, sourceLocation: sourceLocation)
    }

    static let recipient = P256.KeyAgreement.PrivateKey()

    static func valid() throws -> [String] {
        var texts: [String] = []
        for encryption in JWEContentEncryption.allCases {
            for keyID in [nil, "k1"] {
                for (apu, apv) in [(nil, nil), ([UInt8]("Alice".utf8), [UInt8]("Bob".utf8)), ([], [])] as [([UInt8]?, [UInt8]?)] {
                    for length in [0, 1, 15, 16, 17, 300] {
                        texts.append(
                            try JWE.encrypt(
                                [UInt8](repeating: 7, count: length), to: recipient.publicKey, encryption: encryption, keyID: keyID, apu: apu,
                                apv: apv))
                    }
                }
            }
        }
        return texts
    }

    @Test func validAndUnusualTextsAgree() throws {
        let texts = try Self.valid()
        for text in texts { Self.expectAgreement(text) }
        let good = texts[0]
        let parts = good.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let withoutTag = parts.dropLast().joined(separator: ".")
        let withKey = ([parts[0], "AA"] + parts[2...]).joined(separator: ".")
        let padded = ([parts[0], ""] + parts[2...].map { $0 + "=" }).joined(separator: ".")
        var unusual: [String] = ["", ".", "....", ".....", "......", "a.b.c.d.e", "é.ü.😀..x"]
        unusual += [good + ".", good + "..", "." + good, good.replacingOccurrences(of: ".", with: "..")]
        unusual += [withoutTag, withKey, padded, good.replacingOccurrences(of: "-", with: "+")]
        for text in unusual { Self.expectAgreement(text) }
    }

    @Test func mutatedTextsAgree() throws {
        var random = SystemRandomNumberGenerator()
        let texts = try Self.valid()
        let replacements: [Character] = [".", "=", "+", "/", " ", "\n", "A", "-", "_", "é", "\u{0}", "😀", "\""]
        for _ in 0..<3000 {
            var characters = Array(texts[Int.random(in: 0..<texts.count, using: &random)])
            let position = Int.random(in: 0..<characters.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: characters[position] = replacements[Int.random(in: 0..<replacements.count, using: &random)]
            case 1: characters.remove(at: position)
            default: characters.insert(replacements[Int.random(in: 0..<replacements.count, using: &random)], at: position)
            }
            Self.expectAgreement(String(characters))
        }
    }
}
