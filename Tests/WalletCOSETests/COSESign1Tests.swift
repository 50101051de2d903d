import Crypto
import Testing
import WalletCBOR
import WalletVerifierTestSupport

@testable import WalletCOSE

private let sampleDir = "mdoc/apple-verify-with-wallet-sample/sample/"

/// The sample DeviceResponse's first document, as received.
private func sampleDocument() throws -> CBORMap {
    let topics = try CBORDecoder.decode(try TestVectors.hex(sampleDir + "plaintext_topics.cbor"))
    return try topics.map().required("identity").map().required("documents").array()[0].map()
}

private func sampleIssuerAuth() throws -> COSESign1 {
    let issuerAuth = try sampleDocument().required("issuerSigned").map().required("issuerAuth")
    return try COSESign1(cbor: issuerAuth)
}

private func dsKey() throws -> COSEPublicKey {
    try TestCertificates.cosePublicKey(try TestCertificates.certificate(pemFile: sampleDir + "issuer_signing.crt"))
}

/// Apple's "Data to sign" intermediate value from a validation file.
private func appleDataToSign(_ file: String) throws -> [UInt8] {
    let text = try TestVectors.text(sampleDir + file)
    let line = try #require(text.split(separator: "\n").first { $0.lowercased().hasPrefix("data to sign") })
    let hexPart = line.split(separator: " ").last { !$0.isEmpty }!
    return hex(String(hexPart))
}

private func flipping(_ bytes: [UInt8], at index: Int, bit: UInt8 = 0x01) -> [UInt8] {
    var copy = bytes
    copy[index] ^= bit
    return copy
}

@Suite struct AppleSampleIssuerAuthTests {
    @Test func issuerAuthVerifiesWithTheDocumentSignerKey() throws {
        let sign1 = try sampleIssuerAuth()
        #expect(try sign1.algorithm == .es256)
        #expect(try sign1.isValidSignature(key: try dsKey()))
    }

    @Test func sigStructureIsExactlyApplesDataToSign() throws {
        let sign1 = try sampleIssuerAuth()
        #expect(try sign1.signatureStructure() == appleDataToSign("issuer_signature_validation.txt"))
    }

    @Test func x5chainIsTheDocumentSignerCertificate() throws {
        let chain = try sampleIssuerAuth().headers.x5chain()
        #expect(chain.count == 1)
        #expect(chain[0] == (try TestCertificates.der(pemFile: sampleDir + "issuer_signing.crt")))
    }

    /// Flips one bit in a part of the encoded COSE_Sign1 and checks it no longer verifies.
    private func tamperedVerifies(_ part: Int, byteOffsetInPart: Int, bit: UInt8) throws -> Bool? {
        let sign1 = try sampleIssuerAuth()
        let items = try sign1.node.array()
        let original = Array(sign1.node.encodedBytes)
        let base = sign1.node.offset
        // Offset of the part's content (after its byte-string head) within the encoded array.
        let item = items[part]
        let contentStart = (item.bytesValue!.startIndex) - base
        let mutated = flipping(original, at: contentStart + byteOffsetInPart, bit: bit)
        guard let node = try? CBORDecoder.decode(mutated), let tampered = try? COSESign1(cbor: node) else { return nil }
        return try? tampered.isValidSignature(key: try dsKey())
    }

    @Test(arguments: [0x01, 0x10, 0x80] as [UInt8])
    func oneFlippedBitInThePayloadFails(bit: UInt8) throws {
        for offset in [0, 10, 200, 1000] {
            #expect(try tamperedVerifies(2, byteOffsetInPart: offset, bit: bit) != true)
        }
    }

    @Test(arguments: [0, 1, 2])
    func oneFlippedBitInTheProtectedHeaderFails(offset: Int) throws {
        for bit: UInt8 in [0x01, 0x02, 0x40] {
            #expect(try tamperedVerifies(0, byteOffsetInPart: offset, bit: bit) != true)
        }
    }

    @Test(arguments: [0, 31, 32, 63])
    func oneFlippedBitInTheSignatureFails(offset: Int) throws {
        #expect(try tamperedVerifies(3, byteOffsetInPart: offset, bit: 0x01) == false)
    }

    @Test func derEncodedSignatureFailsCleanly() throws {
        let sign1 = try sampleIssuerAuth()
        let der = try P256.Signing.ECDSASignature(rawRepresentation: sign1.signature).derRepresentation
        let items = try sign1.node.array()
        let rebuilt = CBORNode.array([items[0], items[1], items[2], .bytes(der)])
        let withDER = try COSESign1(cbor: rebuilt)
        #expect(throws: COSEError(code: .invalidSignatureFormat, message: "")) {
            try withDER.isValidSignature(key: try dsKey())
        }
        do {
            _ = try withDER.isValidSignature(key: try dsKey())
        } catch {
            #expect((error as? COSEError)?.message.contains("DER") == true)
        }
    }

    @Test func wrongKeyTypeIsAMismatchNotAPass() throws {
        let other = COSESigningKey.p384(P384.Signing.PrivateKey()).publicKey
        #expect(throws: COSEError(code: .keyAlgorithmMismatch, message: "")) {
            try sampleIssuerAuth().isValidSignature(key: other)
        }
        let otherP256 = COSESigningKey.p256(P256.Signing.PrivateKey()).publicKey
        #expect(try sampleIssuerAuth().isValidSignature(key: otherP256) == false)
    }
}

@Suite struct AppleSampleDeviceSignatureTests {
    @Test func detachedDeviceSignatureVerifiesOverDeviceAuthentication() throws {
        let document = try sampleDocument()
        let transcript = try CBORDecoder.decode(try TestVectors.hex(sampleDir + "session_transcript.txt"))
        let deviceSigned = try document.required("deviceSigned").map()
        let deviceNameSpacesBytes = try deviceSigned.required("nameSpaces")
        let docType = try document.required("docType")
        let deviceAuthentication = CBORNode.array([.text("DeviceAuthentication"), transcript, docType, deviceNameSpacesBytes])
        let payload = Array(CBORNode.embedded(deviceAuthentication).encodedBytes)
        let signature = try COSESign1(cbor: deviceSigned.required("deviceAuth").map().required("deviceSignature"))
        #expect(signature.payload == nil)
        #expect(try signature.signatureStructure(detachedPayload: payload) == appleDataToSign("device_signature_validation.txt"))
        let deviceKey = try COSEPublicKey(coseKey: CBORDecoder.decode(try TestVectors.hex(sampleDir + "device_public_key.hex")))
        #expect(try signature.isValidSignature(key: deviceKey, detachedPayload: payload))
        // A flipped byte of the transcript breaks it.
        var otherPayload = payload
        otherPayload[40] ^= 0x01
        #expect(try signature.isValidSignature(key: deviceKey, detachedPayload: otherPayload) == false)
        // Detached payload is required.
        #expect(throws: COSEError(code: .payloadMismatch, message: "")) { try signature.isValidSignature(key: deviceKey) }
    }
}

@Suite struct COSESignRoundTripTests {
    static let keys: [COSESigningKey] = [
        .p256(P256.Signing.PrivateKey()), .p384(P384.Signing.PrivateKey()),
        .p521(P521.Signing.PrivateKey()), .ed25519(Curve25519.Signing.PrivateKey()),
    ]

    @Test(arguments: keys)
    func signAndVerify(key: COSESigningKey) throws {
        let payload: [UInt8] = Array("payload".utf8)
        let attached = try COSESign1.sign(payload: payload, key: key, unprotected: [(.int(4), .bytes([1, 2]))])
        #expect(try attached.isValidSignature(key: key.publicKey))
        let detached = try COSESign1.sign(payload: payload, key: key, detached: true, externalAAD: [9], tagged: true)
        #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload, externalAAD: [9]))
        #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload) == false)
        #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload + [0], externalAAD: [9]) == false)
        // The COSE_Key round trip keeps the key.
        let decoded = try COSEPublicKey(coseKey: key.publicKey.coseKey())
        #expect(decoded.rawPublicKey == key.publicKey.rawPublicKey)
        #expect(try attached.isValidSignature(key: decoded))
    }
}

/// ECDSA verification hashes the Sig_structure in pieces instead of building it: the pieces must be
/// the same bytes whatever length each head takes (1, 2, 3 or 5 bytes).
@Suite struct SigStructureDigestTests {
    static let payloadSizes = [0, 23, 24, 255, 256, 65_535, 65_536]

    @Test(arguments: payloadSizes)
    func piecewiseDigestIsTheDigestOfTheStructure(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for aad in [[], [9], [UInt8](repeating: 3, count: 300)] as [[UInt8]] {
            let built = COSESign1.signatureStructure(protectedBytes: [0xa1, 0x01, 0x26], payload: payload, externalAAD: aad)
            let pieces = COSESign1.digest(SHA256.self, protected: [0xa1, 0x01, 0x26], payload: payload[...], externalAAD: aad)
            #expect(Array(pieces) == Array(SHA256.hash(data: built)))
        }
    }

    @Test(arguments: payloadSizes)
    func ecdsaVerifiesAcrossHeadLengths(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
        for key in [COSESigningKey.p256(P256.Signing.PrivateKey()), .p384(P384.Signing.PrivateKey()), .p521(P521.Signing.PrivateKey())] {
            let attached = try COSESign1.sign(payload: payload, key: key, externalAAD: [1, 2])
            #expect(try attached.isValidSignature(key: key.publicKey, externalAAD: [1, 2]))
            #expect(try attached.isValidSignature(key: key.publicKey) == false)
            let detached = try COSESign1.sign(payload: payload, key: key, detached: true)
            #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload))
            #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload + [0]) == false)
        }
    }
}

@Suite struct COSEStructureTests {
    @Test(arguments: [
        "83 40 a0 40",  // three items
        "a0",  // not an array
        "d863 84 40 a0 40 40",  // wrong tag
        "84 a0 a0 40 40",  // protected not a bstr
        "84 40 40 40 40",  // unprotected not a map
        "84 40 a0 01 40",  // payload neither bstr nor nil
        "84 40 a0 40 01",  // signature not a bstr
        "84 41 01 a0 40 40",  // protected header not a map
    ])
    func malformedSign1(_ input: String) throws {
        let node = try CBORDecoder.decode(hex(input))
        #expect(throws: COSEError(code: .malformedStructure, message: "")) { try COSESign1(cbor: node) }
    }

    @Test func criticalHeadersWeDoNotUnderstandAreRejected() throws {
        // protected {1: -7, 2: [99]}
        let protected = try CBORNode.map([(.int(1), .int(-7)), (.int(2), .array([.int(99)]))])
        let node = CBORNode.array([.bytes(protected.encodedBytes), try .map([]), .bytes([1]), .bytes([UInt8](repeating: 0, count: 64))])
        #expect(throws: COSEError(code: .unsupportedCriticalHeader, message: "")) { try COSESign1(cbor: node) }
    }

    @Test func unknownAlgorithmAndMissingAlgorithm() throws {
        let key = COSESigningKey.p256(P256.Signing.PrivateKey())
        let unknown = CBORNode.array([
            .bytes(try CBORNode.map([(.int(1), .int(-999))]).encodedBytes), try .map([]), .bytes([1]), .bytes([UInt8](repeating: 0, count: 64)),
        ])
        #expect(throws: COSEError(code: .unsupportedAlgorithm, message: "")) { try COSESign1(cbor: unknown).isValidSignature(key: key.publicKey) }
        let none = CBORNode.array([.bytes([]), try .map([]), .bytes([1]), .bytes([UInt8](repeating: 0, count: 64))])
        #expect(throws: COSEError(code: .unsupportedAlgorithm, message: "")) { try COSESign1(cbor: none).isValidSignature(key: key.publicKey) }
    }

    /// The usual protected headers (`{1: alg}` alone), which are not decoded again, give what a decode
    /// gives; bytes that only start like one, or use a longer encoding, are decoded as usual.
    @Test(arguments: ["a10126", "a1013822", "a1013823", "a10127", "a10125", "a1011826", "a20126182100", "a101390100", "a1013822ff"])
    func protectedHeaderReadsAsItsDecode(_ protectedHex: String) throws {
        let protected = hex(protectedHex)
        let node = CBORNode.array([.bytes(protected), try .map([]), .bytes([1]), .bytes([UInt8](repeating: 0, count: 64))])
        let decoded = try? CBORDecoder.decode(protected).map("protected header")
        do {
            let headers = try COSESign1(cbor: node).headers
            #expect(headers.protected == decoded)
            #expect(Array(headers.protectedBytes) == protected)
            #expect(headers[COSEHeaderLabel.algorithm]?.integerValue == decoded?[COSEHeaderLabel.algorithm]?.integerValue)
        } catch {
            #expect(decoded == nil, "\(protectedHex): \(error)")
        }
    }

    @Test func x5chainForms() throws {
        let single = CBORNode.array([.bytes([]), try .map([(.int(33), .bytes([1, 2, 3]))]), .null, .bytes([])])
        #expect(try COSESign1(cbor: single).headers.x5chain() == [[1, 2, 3]])
        let array = CBORNode.array([.bytes([]), try .map([(.int(33), .array([.bytes([1]), .bytes([2])]))]), .null, .bytes([])])
        #expect(try COSESign1(cbor: array).headers.x5chain() == [[1], [2]])
        let missing = CBORNode.array([.bytes([]), try .map([]), .null, .bytes([])])
        #expect(throws: COSEError(code: .missingCertificateChain, message: "")) { try COSESign1(cbor: missing).headers.x5chain() }
        let wrong = CBORNode.array([.bytes([]), try .map([(.int(33), .array([.int(1)]))]), .null, .bytes([])])
        #expect(throws: COSEError(code: .malformedStructure, message: "")) { try COSESign1(cbor: wrong).headers.x5chain() }
    }
}

@Suite struct COSEKeyTests {
    @Test func sampleDeviceKeyIsP256() throws {
        let key = try COSEPublicKey(coseKey: CBORDecoder.decode(try TestVectors.hex(sampleDir + "device_public_key.hex")))
        #expect(key.curveName == "P-256")
        #expect(key.p256KeyAgreementKey != nil)
    }

    @Test(arguments: [
        "a4 01 02 20 01 21 5820" + String(repeating: "00", count: 32) + " 22 5820" + String(repeating: "00", count: 32),  // not on curve
        "a4 01 02 20 01 21 5810" + String(repeating: "11", count: 16) + " 22 5810" + String(repeating: "11", count: 16),  // short
        "a4 01 02 20 07 21 41 00 22 41 00",  // unknown curve
        "a3 01 03 20 01 21 41 00",  // RSA kty
        "a4 01 02 20 01 21 41 00 22 f5",  // compressed
        "a2 01 02 20 01",  // no x
        "80",  // not a map
    ])
    func invalidKeys(_ input: String) throws {
        #expect(throws: COSEError(code: .invalidKey, message: "")) { try COSEPublicKey(coseKey: CBORDecoder.decode(hex(input))) }
    }
}

@Suite struct COSEMac0Tests {
    @Test func macRoundTripAndTamper() throws {
        let key = SymmetricKey(size: .bits256)
        let mac = try COSEMac0.mac(payload: [1, 2, 3], key: key, detached: true)
        #expect(try mac.isValidTag(key: key, detachedPayload: [1, 2, 3]))
        #expect(try mac.isValidTag(key: key, detachedPayload: [1, 2, 4]) == false)
        #expect(try mac.isValidTag(key: SymmetricKey(size: .bits256), detachedPayload: [1, 2, 3]) == false)
        let items = try mac.node.array()
        let short = try COSEMac0(cbor: .array([items[0], items[1], items[2], .bytes(Array(mac.tag.prefix(16)))]))
        #expect(throws: COSEError(code: .invalidSignatureFormat, message: "")) { try short.isValidTag(key: key, detachedPayload: [1, 2, 3]) }
    }
}
