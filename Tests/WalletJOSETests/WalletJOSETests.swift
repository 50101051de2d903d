import Crypto
import Testing
import WalletEncoding
import WalletJSON

@testable import WalletJOSE

/// RFC 7518 Appendix C: ECDH-ES key agreement between Alice (the ephemeral key) and Bob.
enum RFC7518AppendixC {
    static let alice = key(
        d: "0_NxaRPUMQoAJt50Gz8YiTr8gRTwyEaCumd-MToTmIo", x: "gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0",
        y: "SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps")
    static let bob = key(
        d: "VEmDZpDXXK8p8N0Cndsxs924q6nS1RXFASRl6BfUqdw", x: "weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ",
        y: "e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck")

    static func key(d: String, x: String, y: String) -> P256.KeyAgreement.PrivateKey {
        let key = try! P256.KeyAgreement.PrivateKey(rawRepresentation: Base64.decodeURL(d)!)
        precondition(Array(key.publicKey.x963Representation) == [0x04] + Base64.decodeURL(x)! + Base64.decodeURL(y)!)
        return key
    }
}

@Suite struct ConcatKDFTests {
    @Test func theRFC7518AppendixCKeyIsDerivedBothWays() throws {
        let fromAlice = JWE.contentKey(
            privateKey: RFC7518AppendixC.alice, publicKey: RFC7518AppendixC.bob.publicKey, encryption: .a128gcm, apu: Array("Alice".utf8),
            apv: Array("Bob".utf8))
        let fromBob = JWE.contentKey(
            privateKey: RFC7518AppendixC.bob, publicKey: RFC7518AppendixC.alice.publicKey, encryption: .a128gcm, apu: Array("Alice".utf8),
            apv: Array("Bob".utf8))
        #expect(Base64.encodeURL(fromAlice) == "VqqN6vgjbSBcIijNcacQGg")
        #expect(fromBob == fromAlice)
        // The Z of the appendix, through the public KDF.
        let z = try RFC7518AppendixC.bob.sharedSecretFromKeyAgreement(with: RFC7518AppendixC.alice.publicKey).withUnsafeBytes { Array($0) }
        #expect(
            Base64.encodeURL(
                ConcatKDF.derive(
                    sharedSecret: z, algorithmID: Array("A128GCM".utf8), partyUInfo: Array("Alice".utf8), partyVInfo: Array("Bob".utf8),
                    keyBitCount: 128))
                == "VqqN6vgjbSBcIijNcacQGg")
        // A 256-bit key is one SHA-256 block; 384 bits take a second round whose prefix is the first.
        let long = ConcatKDF.derive(sharedSecret: z, algorithmID: [1], partyUInfo: [], partyVInfo: [], keyBitCount: 384)
        #expect(long.count == 48)
    }

    /// NIST SP 800-56A §5.8.1 written out term by term: the reference the one-buffer derivation is held to.
    static func reference(z: [UInt8], algorithmID: [UInt8], apu: [UInt8], apv: [UInt8], bits: Int) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let otherInfo = be32(algorithmID.count) + algorithmID + be32(apu.count) + apu + be32(apv.count) + apv + be32(bits)
        var output: [UInt8] = []
        var counter = 1
        while output.count < bits / 8 {
            output += Array(SHA256.hash(data: be32(counter) + z + otherInfo))
            counter += 1
        }
        return Array(output.prefix(bits / 8))
    }

    @Test(arguments: [0, 8, 128, 248, 256, 264, 384, 512, 776])
    func everyLengthIsTheSpecificationsTermByTerm(bits: Int) {
        let z = (0..<32).map { UInt8($0 * 7 & 0xff) }
        for (apu, apv) in [([UInt8](), [UInt8]()), (Array("Alice".utf8), Array("Bob".utf8)), ([UInt8](repeating: 0xa5, count: 300), [0])] {
            let derived = ConcatKDF.derive(sharedSecret: z, algorithmID: Array("A256GCM".utf8), partyUInfo: apu, partyVInfo: apv, keyBitCount: bits)
            #expect(derived == Self.reference(z: z, algorithmID: Array("A256GCM".utf8), apu: apu, apv: apv, bits: bits))
            #expect(derived.count == bits / 8)
        }
    }

    @Test func aJWEWithTheAppendixHeaderDecryptsForBob() throws {
        let compact = try JWE.encrypt(
            Array("The true sign of intelligence".utf8), to: RFC7518AppendixC.bob.publicKey, encryption: .a128gcm, apu: Array("Alice".utf8),
            apv: Array("Bob".utf8), ephemeralKey: RFC7518AppendixC.alice)
        let jwe = try JWE(compact: compact)
        #expect(jwe.agreementPartyUInfo == Array("Alice".utf8) && jwe.agreementPartyVInfo == Array("Bob".utf8))
        #expect(try jwe.decrypt(with: RFC7518AppendixC.bob) == Array("The true sign of intelligence".utf8))
        #expect(throws: JOSEError.self) { try jwe.decrypt(with: RFC7518AppendixC.alice) }
    }
}

@Suite struct JWKThumbprintTests {
    /// RFC 7638 §3.1: the RSA key of RFC 7517 Appendix A.1.
    @Test func theRFC7638RSAExample() {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(
            Base64.encodeURL(JWK.thumbprint(requiredMembers: ["kty": "RSA", "n": n, "e": "AQAB"])) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    /// The EC form: OpenID4VP 1.0 B.2.6.2's example key, whose thumbprint is the third item of its
    /// OpenID4VPDCAPIHandoverInfo example; `use`, `alg` and `kid` are not part of it.
    @Test func theOpenID4VPExampleKey() throws {
        let json =
            #"{"kty":"EC","crv":"P-256","x":"DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0","y":"XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc","use":"enc","alg":"ECDH-ES","kid":"1"}"#
        let jwk = try JWK(json: Array(json.utf8))
        #expect(Hex.encode(jwk.thumbprint) == "4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047")
        #expect(jwk.keyID == "1" && jwk.use == "enc" && jwk.algorithm == "ECDH-ES")
        // Written and read back.
        #expect(try JWK(json: Array(jwk.json.utf8)) == jwk)
    }

    @Test func keysThatAreNotP256PublicPointsAreRefused() {
        let good = JWK(publicKey: P256.KeyAgreement.PrivateKey().publicKey)
        let cases = [
            #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#, #"{"kty":"EC","crv":"P-384","x":"\#(good.x)","y":"\#(good.y)"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(good.x)"}"#, #"{"kty":"EC","crv":"P-256","x":"\#(good.x)","y":"\#(good.x)"}"#,
            #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"\#(good.y)"}"#, #"{"kty":"EC","crv":"P-256","x":"\#(good.x)=","y":"\#(good.y)"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(good.x)","y":"\#(good.y)","d":"AAAA"}"#, #"{"kty":"EC","kty":"EC"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(good.x)","y":"\#(good.y)","kid":1}"#,
        ]
        for json in cases {
            #expect(throws: JOSEError.self, "\(json)") { try JWK(json: Array(json.utf8)) }
        }
    }
}

@Suite struct JWSTests {
    @Test func signAndVerifyES256() throws {
        let key = P256.Signing.PrivateKey()
        let compact = try JWS.signES256(payload: Array(#"{"a":1}"#.utf8), key: key, type: "oauth-authz-req+jwt", x5c: [[1, 2, 3]])
        let verified = try JWS.verifyES256(compact, publicKey: key.publicKey)
        #expect(verified.payload == Array(#"{"a":1}"#.utf8))
        #expect(verified.header["typ"]?.string == "oauth-authz-req+jwt")
        #expect(verified.header["x5c"]?.array?.first?.string == "AQID")
        let parts = compact.split(separator: ".")
        #expect(Base64.decodeURL(String(parts[2]))?.count == 64)
        #expect(throws: JOSEError(.invalidSignature, "The ES256 signature does not verify with the given key.")) {
            try JWS.verifyES256(compact, publicKey: P256.Signing.PrivateKey().publicKey)
        }
        let none = Base64.encodeURL(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
        #expect(throws: JOSEError.self) { try JWS.verifyES256(none, publicKey: key.publicKey) }
        let crit = Base64.encodeURL(Array(#"{"alg":"ES256","crit":["x"],"x":1}"#.utf8)) + "." + parts[1] + "." + parts[2]
        do {
            _ = try JWS.verifyES256(crit, publicKey: key.publicKey)
            Issue.record("crit accepted")
        } catch { #expect(error.code == .unsupportedHeader) }
        #expect(throws: JOSEError.self) { try JWS.verifyES256(String(parts[0]) + "." + parts[1], publicKey: key.publicKey) }
    }
}

@Suite struct JWETests {
    let recipient = P256.KeyAgreement.PrivateKey()

    @Test(arguments: JWEContentEncryption.allCases)
    func roundTrip(_ encryption: JWEContentEncryption) throws {
        let plaintext: [UInt8] = Array("{\"vp_token\":{}}".utf8)
        let compact = try JWE.encrypt(plaintext, to: recipient.publicKey, encryption: encryption, keyID: "k1")
        let jwe = try JWE(compact: compact)
        #expect(jwe.encryption == encryption && jwe.keyID == "k1")
        #expect(try jwe.decrypt(with: recipient) == plaintext)
        #expect(compact.split(separator: ".", omittingEmptySubsequences: false)[1].isEmpty)
    }

    /// A JWE with this header, encrypted correctly (A128GCM key) so that only the header is wrong.
    func crafted(_ header: String, ephemeral: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()) throws -> String {
        let protected = Base64.encodeURL(Array(header.utf8))
        let key = JWE.contentKey(privateKey: ephemeral, publicKey: recipient.publicKey, encryption: .a128gcm, apu: [], apv: [])
        let box = try AES.GCM.seal([1, 2, 3], using: SymmetricKey(data: key), authenticating: Array(protected.utf8))
        return [protected, "", Base64.encodeURL(box.nonce), Base64.encodeURL(box.ciphertext), Base64.encodeURL(box.tag)].joined(separator: ".")
    }

    func code(_ compact: String) -> JOSEError.Code? {
        do {
            _ = try JWE(compact: compact).decrypt(with: recipient)
            return nil
        } catch { return error.code }
    }

    @Test func everythingElseIsRefusedWithItsCode() throws {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let epk = JWK(publicKey: ephemeral.publicKey).json
        let good = #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(epk)}"#
        #expect(code(try crafted(good, ephemeral: ephemeral)) == nil)
        #expect(code(try crafted(#"{"alg":"ECDH-ES+A128KW","enc":"A128GCM","epk":\#(epk)}"#, ephemeral: ephemeral)) == .unsupportedAlgorithm)
        #expect(code(try crafted(#"{"alg":"RSA-OAEP","enc":"A128GCM"}"#)) == .unsupportedAlgorithm)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128CBC-HS256","epk":\#(epk)}"#, ephemeral: ephemeral)) == .unsupportedEncryption)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM","zip":"DEF","epk":\#(epk)}"#, ephemeral: ephemeral)) == .unsupportedHeader)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM","crit":["b64"],"epk":\#(epk)}"#, ephemeral: ephemeral)) == .unsupportedHeader)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM","alg":"ECDH-ES","epk":\#(epk)}"#, ephemeral: ephemeral)) == .malformedHeader)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM"}"#)) == .malformedHeader)
        #expect(code(try crafted(#"["alg"]"#)) == .malformedHeader)
        // An epk that is not on the curve: y of another point.
        let other = JWK(publicKey: P256.KeyAgreement.PrivateKey().publicKey)
        let offCurve = #"{"kty":"EC","crv":"P-256","x":"\#(JWK(publicKey: ephemeral.publicKey).x)","y":"\#(other.y)"}"#
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(offCurve)}"#)) == .invalidKey)
        #expect(code(try crafted(#"{"alg":"ECDH-ES","enc":"A128GCM","epk":{"kty":"OKP","crv":"X25519","x":"AAAA"}}"#)) == .invalidKey)

        let compact = try crafted(good, ephemeral: ephemeral)
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // An encrypted key with direct key agreement.
        var withKey = parts
        withKey[1] = "AAAA"
        #expect(code(withKey.joined(separator: ".")) == .unsupportedHeader)
        #expect(code(parts.dropLast().joined(separator: ".")) == .malformedCompact)
        #expect(code((parts + ["AA"]).joined(separator: ".")) == .malformedCompact)
        #expect(code("") == .malformedCompact)
        // Padding, the standard alphabet, whitespace.
        var padded = parts
        padded[4] += "=="
        #expect(code(padded.joined(separator: ".")) == .invalidBase64URL)
        var standard = parts
        standard[3] = "+/" + standard[3].dropFirst(2)
        #expect(code(standard.joined(separator: ".")) == .invalidBase64URL)
        #expect(code(compact + " ") == .invalidBase64URL)
        var shortIV = parts
        shortIV[2] = "AAAA"
        #expect(code(shortIV.joined(separator: ".")) == .invalidBase64URL)
        // Altered ciphertext, tag or header: authentication fails.
        var altered = parts
        altered[3] = String(altered[3].first == "A" ? "B" : "A") + altered[3].dropFirst()
        #expect(code(altered.joined(separator: ".")) == .decryptionFailed)
        parts[4] = String(parts[4].first == "A" ? "B" : "A") + parts[4].dropFirst()
        #expect(code(parts.joined(separator: ".")) == .decryptionFailed)
        let reordered = try crafted(good, ephemeral: ephemeral).split(separator: ".", omittingEmptySubsequences: false)
        let sameHeaderOtherText = Base64.encodeURL(Array(#"{"enc":"A128GCM","alg":"ECDH-ES","epk":\#(epk)}"#.utf8))
        #expect(code(([Substring(sameHeaderOtherText)] + reordered.dropFirst()).joined(separator: ".")) == .decryptionFailed)
        // Oversized input.
        #expect(code(String(repeating: "A", count: JWE.maximumCompactLength + 1)) == .malformedCompact)
    }

    @Test func compactPartsAreTheDotSeparatedParts() {
        // The same parts as splitting the String (at most five splits), ASCII or not.
        for text in ["", ".", "a.b", "a..b.", "a.b.c.d.e", "a.b.c.d.e.f.g", "é.ü.😀..x", "...........", "no dots"] {
            let expected = text.split(separator: ".", maxSplits: 5, omittingEmptySubsequences: false)
            #expect(JWE.compactParts(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func messagesNameWhatIsSupported() throws {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        do {
            _ = try JWE(compact: try crafted(#"{"alg":"ECDH-ES","enc":"A192GCM","epk":\#(JWK(publicKey: ephemeral.publicKey).json)}"#))
            Issue.record("A192GCM accepted")
        } catch {
            let message = (error as? JOSEError)?.message ?? ""
            #expect(message.contains("A128GCM, A256GCM") && message.contains("A192GCM"))
        }
    }

    /// OpenID4VP 1.0 §8.3: the encrypted response example, with the private key the section publishes.
    @Test func theOpenID4VPSection8_3ExampleDecrypts() throws {
        let key = try P256.KeyAgreement.PrivateKey(rawRepresentation: Base64.decodeURL("Et-3ce0omz8_TuZ96Df9lp0GAaaDoUnDe6X-CRO7Aww")!)
        #expect(JWK(publicKey: key.publicKey).x == "YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk")
        let jwe = try JWE(compact: OpenID4VPSection8_3.response)
        #expect(jwe.keyID == "ac" && jwe.encryption == .a128gcm)
        let payload = try jwe.decrypt(with: key)
        let object = try #require(try StrictJSON.parse(payload).object)
        #expect(object["vp_token"]?.object?["example_credential_id"]?.array?.count == 1)
    }
}

/// The example response of OpenID4VP 1.0 §8.3, its display line breaks removed.
enum OpenID4VPSection8_3 {
    static let response =
        "eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSIsImtpZCI6ImFjIiwiZXBrIjp7Imt"
        + "0eSI6IkVDIiwieCI6Im5ubVZwbTNWM2piaGNhZlFhUkJrU1ZOSGx3Wkh3dC05ck9wSnVmeVlJdWsiLCJ5I"
        + "joicjRmakRxd0p5czlxVU9QLV9iM21SNVNaRy0tQ3dPMm1pYzVWU05UWU45ZyIsImNydiI6IlAtMjU2In1"
        + "9..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN"
        + "4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ"
}
