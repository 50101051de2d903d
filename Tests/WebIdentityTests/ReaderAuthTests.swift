import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport
import WebIdentity
import X509

private let capture = "mdoc/dcapi-annex-c-chrome-android-jmandel/request/"

/// ISO/IEC 18013-5 §9.1.4 reader authentication: requests we sign verify, every tampering fails, and a
/// real request signed by someone else verifies over its bytes as received.
@Suite struct ReaderAuthTests {
    let origin = "https://verifier.example"
    let time = Date(timeIntervalSince1970: 1_700_000_000)
    let request = WebDocumentRequest(
        docType: "org.iso.18013.5.1.mDL",
        elements: [
            .init(nameSpace: "org.iso.18013.5.1", identifier: "age_over_21"),
            .init(nameSpace: "org.iso.18013.5.1", identifier: "portrait", intentToRetain: true),
        ])

    func signedRequest(_ pki: ReaderPKI, all: Bool = false) throws -> WebPresentationRequest {
        let signer = try ReaderAuthSigner(key: pki.readerKey, chain: pki.chainDER)
        return try WebPresentationRequest(
            request: request, origin: origin, nonce: Array(repeating: 4, count: 32),
            recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey, readerAuth: signer, readerAuthAll: all)
    }

    func verify(_ bytes: [UInt8], transcript: SessionTranscript, roots: [Certificate], at time: Date? = nil) async -> VerificationReport {
        await ReaderAuthVerifier(roots: roots).verify(deviceRequest: bytes, transcript: transcript, context: .at(time ?? self.time))
    }

    /// The real Chrome/Android capture: its DocRequest's readerAuth (by "SMART Health Check-in Demo
    /// Verifier", self-signed) verifies over the capture's own ItemsRequest bytes and transcript.
    @Test func theRealCapturesReaderAuthVerifies() async throws {
        let bytes = try TestVectors.data(capture + "device-request.cbor")
        let transcript = try SessionTranscript(bytes: try TestVectors.data(capture + "session-transcript.cbor"))
        let received = try ReceivedDeviceRequest(cborBytes: bytes)
        let leaf = try Certificate(derEncoded: Array(try #require(received.docRequests.first?.readerAuth).headers.x5chainBytes()[0]))
        #expect("\(leaf.subject)".contains("SMART Health Check-in Demo Verifier"))
        let time = RFC3339.parse("2026-05-01T17:30:00Z")!
        let report = await verify(bytes, transcript: transcript, roots: [leaf], at: time)
        #expect(report.check(.readerAuthSignature)?.status == .passed, "\(report.failures.map(\.message))")
        #expect(report.check(.readerAuthChain)?.status == .passed)
        #expect(report.check(.readerAuthChain)?.details["pinned"] == "true")
        // The demo certificate has no reader-authentication EKU: the profile check says so.
        #expect(report.check(.readerAuthProfile)?.reason == .profileViolation)
        #expect(report.check(.readerAuthProfile)?.message.contains("1.0.18013.5.1.6") == true)
        // Another origin makes another transcript: the signature no longer verifies.
        let other = SessionTranscript.dcapi(
            encryptionInfoBase64URL: try TestVectors.text(capture + "encryption-info.b64u").trimmingCharacters(in: .whitespacesAndNewlines),
            origin: "https://127.0.0.1:3010")
        #expect(await verify(bytes, transcript: other, roots: [leaf], at: time).check(.readerAuthSignature)?.reason == .readerSignatureInvalid)
        // The right origin rebuilds the capture's transcript exactly.
        let rebuilt = SessionTranscript.dcapi(
            encryptionInfoBase64URL: try TestVectors.text(capture + "encryption-info.b64u").trimmingCharacters(in: .whitespacesAndNewlines),
            origin: "http://127.0.0.1:3010")
        #expect(rebuilt.bytes == transcript.bytes)
        // Not trusted without the pin.
        #expect(
            await verify(bytes, transcript: transcript, roots: [try ReaderPKI().root], at: time).check(.readerAuthChain)?.reason == .untrustedReader)
    }

    @Test(arguments: [(ReaderPKI.Curve.p256, false), (.p256, true), (.p384, false), (.p384, true)])
    func signedRequestsVerify(curve: ReaderPKI.Curve, intermediate: Bool) async throws {
        var options = ReaderPKI.Options()
        options.curve = curve
        options.intermediate = intermediate
        let pki = try ReaderPKI(options)
        let presentation = try signedRequest(pki)
        let report = await verify(presentation.deviceRequest, transcript: presentation.sessionTranscript, roots: [pki.root])
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        #expect(report.check(.readerAuthChain)?.details["chainLength"] == (intermediate ? "3" : "2"))

        // The signed bytes are ReaderAuthenticationBytes built independently from the request's own
        // ItemsRequest bytes and transcript.
        let received = try ReceivedDeviceRequest(cborBytes: presentation.deviceRequest)
        #expect(received.version == "1.0")
        let items = try CBORDecoder.decode(Array(received.docRequests[0].itemsRequestBytes))
        let independent = CBORNode.embedded(CBORNode.array([.text("ReaderAuthentication"), presentation.sessionTranscript.node, items]))
        #expect(
            ReaderAuthentication.bytes(transcript: presentation.sessionTranscript, itemsRequestBytes: received.docRequests[0].itemsRequestBytes)
                == Array(independent.encodedBytes))
        let signature = try #require(received.docRequests[0].readerAuth)
        #expect(signature.payload == nil)
        #expect(try signature.algorithm == (curve == .p256 ? .es256 : .es384))
        let key: COSEPublicKey =
            curve == .p256 ? .p256(P256.Signing.PublicKey(pki.reader.publicKey)!) : .p384(P384.Signing.PublicKey(pki.reader.publicKey)!)
        #expect(try signature.isValidSignature(key: key, detachedPayload: Array(independent.encodedBytes)))
        // x5chain: one byte string for one certificate, an array otherwise.
        let x5chain = try #require(signature.headers[33])
        #expect(intermediate ? x5chain.arrayValue?.count == 2 : x5chain.bytesValue != nil)
    }

    @Test func readerAuthAllVerifies() async throws {
        let pki = try ReaderPKI()
        let presentation = try signedRequest(pki, all: true)
        let received = try ReceivedDeviceRequest(cborBytes: presentation.deviceRequest)
        #expect(received.version == "1.1")
        #expect(received.readerAuthAll.count == 1)
        #expect(received.docRequests.allSatisfy { $0.readerAuth == nil })
        let report = await verify(presentation.deviceRequest, transcript: presentation.sessionTranscript, roots: [pki.root])
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        #expect(report.check(.readerAuthSignature)?.scope == "readerAuthAll[0]")
        // ["ReaderAuthenticationAll", SessionTranscript, [ItemsRequestBytes], null], built independently.
        let items = try CBORDecoder.decode(Array(received.docRequests[0].itemsRequestBytes))
        let independent = CBORNode.embedded(
            CBORNode.array([.text("ReaderAuthenticationAll"), presentation.sessionTranscript.node, .array([items]), .null]))
        let key = COSEPublicKey.p256(P256.Signing.PublicKey(pki.reader.publicKey)!)
        #expect(try received.readerAuthAll[0].isValidSignature(key: key, detachedPayload: Array(independent.encodedBytes)))
    }

    @Test func tamperingFailsTheSignature() async throws {
        let pki = try ReaderPKI()
        let presentation = try signedRequest(pki)
        let good = presentation.deviceRequest
        // Every byte of the ItemsRequest (the content of the tag-24 byte string): flip it and the
        // signature fails, whether or not the damaged ItemsRequest still decodes.
        let received = try ReceivedDeviceRequest(cborBytes: good)
        let item = received.docRequests[0].itemsRequestBytes
        guard case .tagged(24, let inner) = try CBORDecoder.decode(Array(item)).value, let content = inner.bytesValue else {
            Issue.record("not tag 24")
            return
        }
        let start = item.startIndex + (item.count - content.count)
        var undecodable = 0
        for index in start..<item.endIndex {
            var bytes = good
            bytes[index] ^= 0x01
            let report = await verify(bytes, transcript: presentation.sessionTranscript, roots: [pki.root])
            #expect(report.verdict == .rejected, "byte \(index)")
            #expect(report.check(.readerRequestStructure)?.status == .passed, "byte \(index)")
            #expect(report.check(.readerAuthSignature)?.reason == .readerSignatureInvalid, "byte \(index)")
            if report.check(.readerRequestItems)?.status == .failed { undecodable += 1 }
        }
        #expect(content.count > 60)
        // Some flips leave a decodable ItemsRequest, some do not; both fail the signature.
        #expect(undecodable > 0 && undecodable < content.count)
        // Another origin or another encryption info: another transcript.
        let otherOrigin = SessionTranscript.dcapi(encryptionInfoBase64URL: presentation.encryptionInfo.base64URL, origin: "https://attacker.example")
        #expect(await verify(good, transcript: otherOrigin, roots: [pki.root]).check(.readerAuthSignature)?.reason == .readerSignatureInvalid)
        let otherInfo = try DCAPIEncryptionInfo(nonce: Array(repeating: 5, count: 32), recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey)
        let otherTranscript = SessionTranscript.dcapi(encryptionInfoBase64URL: otherInfo.base64URL, origin: origin)
        #expect(await verify(good, transcript: otherTranscript, roots: [pki.root]).check(.readerAuthSignature)?.reason == .readerSignatureInvalid)
    }

    @Test func untrustedRootsAndProfileViolationsFail() async throws {
        let pki = try ReaderPKI()
        let presentation = try signedRequest(pki)
        let untrusted = await verify(presentation.deviceRequest, transcript: presentation.sessionTranscript, roots: [try ReaderPKI().root])
        #expect(untrusted.check(.readerAuthChain)?.reason == .untrustedReader)
        #expect(untrusted.check(.readerAuthSignature)?.status == .passed)
        #expect(
            await verify(presentation.deviceRequest, transcript: presentation.sessionTranscript, roots: []).check(.readerAuthChain)?.reason
                == "noTrustAnchor")
        var noEKU = ReaderPKI.Options()
        noEKU.readerHasEKU = false
        let withoutEKU = try ReaderPKI(noEKU)
        let unprofiled = try signedRequest(withoutEKU)
        let report = await verify(unprofiled.deviceRequest, transcript: unprofiled.sessionTranscript, roots: [withoutEKU.root])
        #expect(report.check(.readerAuthProfile)?.reason == .profileViolation)
        #expect(report.verdict == .rejected)
        let signer = try ReaderAuthSigner(key: withoutEKU.readerKey, chain: withoutEKU.chainDER)
        #expect(signer.profileViolations(at: time).contains { $0.contains("1.0.18013.5.1.6") })
        #expect(try ReaderAuthSigner(key: pki.readerKey, chain: pki.chainDER).profileViolations(at: time).isEmpty)
        // Expired at the verification time.
        let late = await verify(
            presentation.deviceRequest, transcript: presentation.sessionTranscript, roots: [pki.root], at: Date(timeIntervalSince1970: 2_100_000_000))
        #expect(late.check(.readerAuthChain)?.reason == "certificateExpired")
        // An unsigned request is not authenticated.
        let unsigned = try WebPresentationRequest(
            request: request, origin: origin, nonce: Array(repeating: 4, count: 32), recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey)
        #expect(
            await verify(unsigned.deviceRequest, transcript: unsigned.sessionTranscript, roots: [pki.root]).check(.readerRequestStructure)?.reason
                == .readerAuthMissing)
    }

    /// readerAuthAll and deviceRequestInfo need DeviceRequest 1.1; other major versions are not read.
    @Test func versionsAreChecked() async throws {
        let pki = try ReaderPKI()
        let presentation = try signedRequest(pki, all: true)
        let entries = try CBORDecoder.decode(presentation.deviceRequest).map().entries
        func withVersion(_ version: String) throws -> [UInt8] {
            Array(try CBORNode.map(entries.map { ($0.key, $0.key.textValue == "version" ? CBORNode.text(version) : $0.value) }).encodedBytes)
        }
        for (version, accepted) in [("1.1", true), ("1.2", true), ("1.0", false), ("2.0", false), ("1", false), ("1.x", false)] {
            let report = await verify(try withVersion(version), transcript: presentation.sessionTranscript, roots: [pki.root])
            if accepted {
                #expect(report.check(.readerRequestStructure)?.status == .passed, "\(version)")
            } else {
                #expect(report.check(.readerRequestStructure)?.reason == .unsupportedVersion, "\(version)")
                #expect(report.check(.readerAuthSignature)?.status == .skipped, "\(version)")
                #expect(report.verdict == .rejected)
            }
        }
        // Per-DocRequest readerAuth under 1.0 is the first edition's form.
        let perDocument = try signedRequest(pki)
        #expect(
            await verify(perDocument.deviceRequest, transcript: perDocument.sessionTranscript, roots: [pki.root]).check(.readerRequestItems)?.details[
                "docType"] == "org.iso.18013.5.1.mDL")
    }

    /// The key and certificate formats the CLI and the service load: SEC1 and PKCS#8 PEM, private JWKs
    /// on both curves, certificates as PEM (one file holding the chain, or one file each) or DER.
    @Test(arguments: [ReaderPKI.Curve.p256, .p384])
    func keyAndCertificateFormatsLoad(curve: ReaderPKI.Curve) throws {
        var options = ReaderPKI.Options()
        options.curve = curve
        options.intermediate = true
        let pki = try ReaderPKI(options)
        let (sec1, pkcs8) = (pki.readerKeySEC1PEM, pki.readerKeyPEM)
        let (jwk, d): (String, [UInt8]) =
            switch pki.readerKey {
            case .p256(let k): ("P-256", Array(k.rawRepresentation))
            case .p384(let k): ("P-384", Array(k.rawRepresentation))
            default: ("", [])
            }
        #expect(sec1.contains("BEGIN EC PRIVATE KEY") && pkcs8.contains("BEGIN PRIVATE KEY"))
        let jwkText = "{\"kty\":\"EC\",\"crv\":\"\(jwk)\",\"d\":\"\(Base64.encodeURL(d))\"}"
        let leafDER = pki.chainDER[0], intermediateDER = pki.chainDER[1]
        let chainPEM = Array((ReaderPKI.pem(pki.reader) + ReaderPKI.pem(pki.intermediate!)).utf8)
        let certificateSets: [[(name: String, contents: [UInt8])]] = [
            [("chain.pem", chainPEM)],
            [("leaf.der", leafDER), ("intermediate.der", intermediateDER)],
            [("leaf.pem", Array(ReaderPKI.pem(pki.reader).utf8)), ("intermediate.der", intermediateDER)],
        ]
        for key in [sec1, pkcs8, jwkText] {
            for certificates in certificateSets {
                let signer = try ReaderAuthSigner.load(keyContents: Array(key.utf8), keyName: "key", certificateFiles: certificates)
                #expect(signer.chain == pki.chainDER)
                #expect(signer.profileViolations(at: time).isEmpty)
            }
        }
        // A public JWK, a JWK on another curve, an RSA-looking file and garbage are refused by name.
        for bad in [
            "{\"kty\":\"EC\",\"crv\":\"\(jwk)\",\"x\":\"AA\",\"y\":\"AA\"}", "{\"kty\":\"EC\",\"crv\":\"P-521\",\"d\":\"AAAA\"}",
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----", "not a key",
        ] {
            #expect { try ReaderAuthSigner.signingKey(contents: Array(bad.utf8), name: "reader.key") } throws: { "\($0)".contains("reader.key") }
        }
        #expect {
            try ReaderAuthSigner.load(
                keyContents: Array(sec1.utf8), keyName: "k",
                certificateFiles: [("broken.pem", Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----".utf8))])
        } throws: { "\($0)".contains("broken.pem") }
    }

    @Test func aKeyThatDoesNotMatchTheLeafIsRefused() throws {
        let pki = try ReaderPKI()
        #expect(throws: ReaderAuthError.self) { try ReaderAuthSigner(key: .p256(P256.Signing.PrivateKey()), chain: pki.chainDER) }
        #expect(throws: ReaderAuthError.self) { try ReaderAuthSigner(key: pki.readerKey, chain: []) }
        #expect(throws: ReaderAuthError.self) { try ReaderAuthSigner(key: .p521(P521.Signing.PrivateKey()), chain: pki.chainDER) }
    }
}
