import Crypto
import Foundation
import SwiftASN1
import Testing
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJOSE
import WalletJSON
import X509

/// The receipt's JWS: its header, its key id, the signer protocol, and what `receipt verify` refuses.
@Suite struct ReceiptSignatureTests {
    static let report = VerificationReport(
        flow: "mdoc", policy: "mdoc/iso18013-5@1", evaluatedAt: Date(timeIntervalSince1970: 1_700_000_000),
        checks: [
            CheckResult(id: "mdoc.response.structure", status: .passed, reason: .ok, message: "The DeviceResponse decoded: Erika."),
            CheckResult(id: "mdoc.issuer.signature", status: .failed, reason: "signatureInvalid", message: "no", scope: "document[0]"),
        ])
    static let content = ReceiptContent(flow: "mdoc", report: report, submissionSHA256: Array(SHA256.hash(data: [1, 2, 3])))

    static func certificate(for key: P256.Signing.PrivateKey) throws -> Certificate {
        let name = try DistinguishedName { CommonName("receipts.verifier.example") }
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {}, issuerPrivateKey: .init(key))
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// Another signer behind the protocol, as an HSM or KMS would be: it sees only the signing input.
    struct CountingSigner: ReceiptSigner {
        let key = P256.Signing.PrivateKey()
        var keyID: String { "kms-key-1" }
        var publicKey: P256.Signing.PublicKey { key.publicKey }
        var certificateChain: [[UInt8]] { [] }
        func signES256(_ signingInput: [UInt8]) async throws -> [UInt8] { Array(try key.signature(for: signingInput).rawRepresentation) }
    }

    @Test func theHeaderNamesTheTypeTheKeyAndTheCertificate() async throws {
        let key = P256.Signing.PrivateKey()
        let certificate = try Self.certificate(for: key)
        let signer = try ReceiptSigningKey(privateKey: key, certificateChain: [try Self.der(certificate)])
        let issued = try await VerificationReceipt.issue(Self.content, signer: signer, issuer: "https://verifier.example", now: Date())
        let header = try #require(try StrictJSON.parse(Base64.decodeURL(String(issued.jws.split(separator: ".")[0])) ?? []).object)
        #expect(header["alg"]?.string == "ES256")
        #expect(header["typ"]?.string == "wallet-verifier-receipt+jwt")
        #expect(header["kid"]?.string == ReceiptKeys.thumbprint(key.publicKey))
        #expect(header["x5c"]?.array?.first?.string == Base64.encode(try Self.der(certificate)))
        let verified = try ReceiptVerifier.verify(issued.jws, certificate: certificate)
        #expect(verified.claims["iss"]?.string == "https://verifier.example")
        #expect(verified.claims["jti"]?.string == issued.id && issued.id.count == 22)
        #expect(verified.claims["policy"]?.string == "mdoc/iso18013-5@1")
        #expect(verified.claims["time"]?.string == "2023-11-14T22:13:20Z")
        #expect(!String(decoding: verified.payload, as: UTF8.self).contains("Erika"), "messages are never in a receipt")
        // The JWK lists the certificate too.
        #expect(signer.publicJWK.contains("\"x5c\":[\"\(Base64.encode(try Self.der(certificate)))\"]"))
    }

    @Test func theSameContentGivesTheSamePayload() {
        let time = Date(timeIntervalSince1970: 1_700_000_100)
        let one = VerificationReceipt.payload(Self.content, issuer: "i", issuedAt: time, id: "abc")
        let two = VerificationReceipt.payload(Self.content, issuer: "i", issuedAt: time, id: "abc")
        #expect(one == two)
        #expect(String(decoding: one, as: UTF8.self).hasPrefix(#"{"iss":"i","iat":1700000100,"jti":"abc","flow":"mdoc","time":"#))
    }

    @Test func aSignerBehindTheProtocolSigns() async throws {
        let signer = CountingSigner()
        let issued = try await VerificationReceipt.issue(Self.content, signer: signer, issuer: nil, now: Date())
        let verified = try ReceiptVerifier.verify(issued.jws, jwks: Array(ReceiptKeySet.json([signer.publicJWK]).utf8))
        #expect(verified.keyID == "kms-key-1")
        #expect(verified.claims["iss"] == nil)
    }

    @Test func whatDoesNotVerifyIsRefusedByKind() async throws {
        let key = P256.Signing.PrivateKey()
        let signer = try ReceiptSigningKey(privateKey: key)
        let jwks = Array(ReceiptKeySet.json([signer.publicJWK]).utf8)
        let issued = try await VerificationReceipt.issue(Self.content, signer: signer, issuer: nil, now: Date())
        func kind(_ body: () throws(ReceiptVerificationError) -> VerifiedReceipt) -> ReceiptVerificationError.Kind? {
            do {
                _ = try body()
                return nil
            } catch { return error.kind }
        }
        // A changed payload (the verdict turned to accepted).
        let parts = issued.jws.split(separator: ".").map(String.init)
        let changed = String(decoding: issued.payload, as: UTF8.self).replacingOccurrences(of: "\"rejected\"", with: "\"accepted\"")
        #expect(changed != String(decoding: issued.payload, as: UTF8.self))
        let tampered = [parts[0], Base64.encodeURL(Array(changed.utf8)), parts[2]].joined(separator: ".")
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify(tampered, jwks: jwks) } == .invalid)
        // A key this issuer does not list; another key's certificate.
        let other = try ReceiptSigningKey(privateKey: P256.Signing.PrivateKey())
        #expect(
            kind { () throws(ReceiptVerificationError) in
                try ReceiptVerifier.verify(issued.jws, jwks: Array(ReceiptKeySet.json([other.publicJWK]).utf8))
            } == .invalid)
        let otherCertificate = try Self.certificate(for: P256.Signing.PrivateKey())
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify(issued.jws, certificate: otherCertificate) } == .invalid)
        // Another JWS type: an OpenID4VP request object, say.
        let notAReceipt = try JWS.signES256(payload: Array("{}".utf8), key: key, type: "oauth-authz-req+jwt", keyID: signer.keyID)
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify(notAReceipt, jwks: jwks) } == .invalid)
        // Not a JWS; a JWKS that is not one.
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify("garbage", jwks: jwks) } == .unreadable)
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify(issued.jws, jwks: Array("[]".utf8)) } == .unreadable)
        // And the original verifies.
        #expect(kind { () throws(ReceiptVerificationError) in try ReceiptVerifier.verify(issued.jws, jwks: jwks) } == nil)
    }

    @Test func aCertificateOfAnotherKeyIsRefusedAtLoad() throws {
        let certificate = try Self.certificate(for: P256.Signing.PrivateKey())
        #expect(throws: ReceiptKeyError.self) {
            try ReceiptSigningKey(privateKey: P256.Signing.PrivateKey(), certificateChain: [try Self.der(certificate)])
        }
        #expect(throws: ReceiptKeyError.self) { try ReceiptSigningKey.load(keyPEM: "not a key", keyName: "receipt.key") }
    }
}
