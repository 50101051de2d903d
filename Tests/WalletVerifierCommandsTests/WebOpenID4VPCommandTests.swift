import Crypto
import Foundation
import Mdoc
import SwiftASN1
import Testing
import WalletEncoding
import WalletJOSE
import WalletVerifierCommands
import WalletVerifierTestSupport
import X509

/// `web request` offers Annex C and OpenID4VP in one argument; `web verify --session` takes the
/// answer of either protocol, once per session.
@Suite struct WebOpenID4VPCommandTests {
    static let at = WebSessionCommandTests.at
    static let origin = "https://verifier.example"

    /// The OpenID4VP entry of a printed argument: its protocol and request object (the JWS payload when signed).
    static func openID4VP(_ argument: [String: Any]) throws -> (protocolName: String, object: [String: Any], jws: String?)? {
        let requests = try #require((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])
        guard let entry = requests.first(where: { ($0["protocol"] as? String)?.hasPrefix("openid4vp") == true }) else { return nil }
        let name = try #require(entry["protocol"] as? String)
        let data = try #require(entry["data"] as? [String: Any])
        guard name == "openid4vp-v1-signed" else { return (name, data, nil) }
        let jws = try #require(data["request"] as? String)
        let payload = try #require(Base64.decodeURL(String(jws.split(separator: ".")[1])))
        return (name, try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]), jws)
    }

    /// A wallet's OpenID4VP answer (the credential JSON) with a passport for `object`'s nonce and key.
    /// With `transcript`, the device signs that transcript instead.
    static func answer(_ name: String, _ object: [String: Any], pki: PassportPKI, transcript signed: SessionTranscript? = nil) throws -> String {
        let jwk = try #require(((object["client_metadata"] as? [String: Any])?["jwks"] as? [String: Any])?["keys"] as? [[String: Any]]).first ?? [:]
        let x = try #require(jwk["x"] as? String), y = try #require(jwk["y"] as? String)
        let thumbprint = Array(SHA256.hash(data: Data(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8)))
        let nonce = try #require(object["nonce"] as? String)
        let transcript = SessionTranscript.openID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
        let deviceResponse = try PhotoIDFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: signed ?? transcript)
        let id = try #require(((object["dcql_query"] as? [String: Any])?["credentials"] as? [[String: Any]])?.first?["id"] as? String)
        let payload = try JSONSerialization.data(withJSONObject: ["vp_token": [id: [Base64.encodeURL(deviceResponse)]]])
        let xBytes = try #require(Base64.decodeURL(x)), yBytes = try #require(Base64.decodeURL(y))
        let key = try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + xBytes + yBytes)
        let jwe = try JWE.encrypt(Array(payload), to: key, keyID: jwk["kid"] as? String)
        return #"{"protocol":"\#(name)","data":{"response":"\#(jwe)"}}"#
    }

    static func requestArguments(_ scratch: Scratch, key: String, session: String) -> [String] {
        ["web", "request", "--doctype", PhotoIDFixture.docType, "--origin", origin, "--recipient-key", key, "--out", session]
            + PhotoIDFixture.defaultElements.flatMap { ["--element", "\(PhotoIDFixture.nameSpace)/\($0.identifier)"] }
    }

    @Test func anOpenID4VPAnswerVerifiesOncePerSession() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let keyPath = try scratch.write("recipient.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        let sessionPath = scratch.path("session.json")
        let request = await WalletVerifierCommand.runCapturing(Self.requestArguments(scratch, key: keyPath, session: sessionPath))
        #expect(request.code == 0, "\(request.stderr)")
        let argument = try json(request.stdout)
        let protocols = ((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.map { $0["protocol"] as? String }
        #expect(protocols == ["org-iso-mdoc", "openid4vp-v1-unsigned"])
        let entry = try #require(try Self.openID4VP(argument))

        let pki = try PassportPKI()
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        let responsePath = try scratch.write("credential.json", try Self.answer(entry.protocolName, entry.object, pki: pki))
        let verify = [
            "web", "verify", "--response", responsePath, "--session", sessionPath, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)", "--at",
            Self.at, "--revocation", "off", "--format", "json",
        ]
        let first = await WalletVerifierCommand.runCapturing(verify)
        #expect(first.code == 0, "\(first.stdout)\(first.stderr)")
        let report = try json(first.stdout)
        #expect(check(report, "web.openid4vp.response")?["status"] as? String == "passed")
        #expect(check(report, "web.openid4vp.credentials")?["status"] as? String == "passed")
        #expect(check(report, "replay.nonce")?["status"] as? String == "passed")
        #expect(check(report, "mdoc.device.authentication")?["status"] as? String == "passed")

        let again = await WalletVerifierCommand.runCapturing(verify)
        #expect(again.code == 1)
        #expect(check(try json(again.stdout), "replay.nonce")?["reason"] as? String == "nonceReused")
    }

    /// `web verify` names the transcript a wallet signed: the Annex C offer of the same session, or
    /// the web key's own thumbprint in place of the request key's; the session stays unused.
    @Test func aFailedDeviceSignatureNamesTheTranscriptTheWalletSigned() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let webKey = P256.KeyAgreement.PrivateKey()
        let keyPath = try scratch.write("recipient.pem", webKey.pemRepresentation)
        let pki = try PassportPKI()
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        // Each answer gets a session of its own (the CLI uses a session once, whatever the answer).
        let cases: [(label: String, signed: (_ info: String, _ nonce: String) -> SessionTranscript)] = [
            ("otherProtocol:org-iso-mdoc", { info, _ in .dcapi(encryptionInfoBase64URL: info, origin: Self.origin) }),
            (
                "otherKeyThumbprint",
                { _, nonce in
                    .openID4VPDigitalCredentials(origin: Self.origin, nonce: nonce, jwkThumbprint: JWK(publicKey: webKey.publicKey).thumbprint)
                }
            ),
        ]
        for (index, (label, signed)) in cases.enumerated() {
            let sessionPath = scratch.path("session-\(index).json")
            let request = await WalletVerifierCommand.runCapturing(Self.requestArguments(scratch, key: keyPath, session: sessionPath))
            #expect(request.code == 0, "\(request.stderr)")
            let argument = try json(request.stdout)
            let entry = try #require(try Self.openID4VP(argument))
            let requests = try #require((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])
            let info = try #require(
                (requests.first { $0["protocol"] as? String == "org-iso-mdoc" }?["data"] as? [String: Any])?["encryptionInfo"] as? String)
            let nonce = try #require(entry.object["nonce"] as? String)
            let responsePath = try scratch.write(
                "credential-\(index).json", try Self.answer(entry.protocolName, entry.object, pki: pki, transcript: signed(info, nonce)))
            let result = await WalletVerifierCommand.runCapturing([
                "web", "verify", "--response", responsePath, "--session", sessionPath, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)",
                "--at", Self.at, "--revocation", "off", "--format", "json",
            ])
            #expect(result.code == 1, "\(result.stdout)\(result.stderr)")
            let device = try #require(check(try json(result.stdout), "mdoc.device.authentication"))
            #expect((device["details"] as? [String: Any])?["transcriptDiagnosis"] as? String == label, "\(device)")
            #expect(!(device["message"] as? String ?? "").contains(nonce))
        }
    }

    @Test func signedRequestsAndTheProtocolChoice() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let keyPath = try scratch.write("recipient.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        // A request-signing certificate with a DNS name.
        let signing = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("verifier.example") }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(signing.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("verifier.example")]) }, issuerPrivateKey: .init(signing))
        var serializer = DER.Serializer()
        try serializer.serialize(leaf)
        let signingKey = try scratch.write("signing.pem", signing.pemRepresentation)
        let signingCert = try scratch.write("signing.crt", pem(serializer.serializedBytes))

        let sessionPath = scratch.path("signed.json")
        let signed = await WalletVerifierCommand.runCapturing(
            Self.requestArguments(scratch, key: keyPath, session: sessionPath) + [
                "--request-signing-key", signingKey, "--request-signing-cert", signingCert,
            ])
        #expect(signed.code == 0, "\(signed.stderr)")
        let entry = try #require(try Self.openID4VP(try json(signed.stdout)))
        #expect(entry.protocolName == "openid4vp-v1-signed")
        #expect(entry.object["client_id"] as? String == "x509_san_dns:verifier.example")
        #expect(entry.object["expected_origins"] as? [String] == [Self.origin])
        let jws = try #require(entry.jws)
        let parts = jws.split(separator: ".").map(String.init)
        let signatureBytes = try #require(Base64.decodeURL(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(signing.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))

        let hashed = await WalletVerifierCommand.runCapturing(
            Self.requestArguments(scratch, key: keyPath, session: scratch.path("hashed.json")) + [
                "--request-signing-key", signingKey, "--request-signing-cert", signingCert, "--openid4vp-client-id", "x509_hash",
            ])
        #expect(
            try Self.openID4VP(try json(hashed.stdout))?.object["client_id"] as? String == "x509_hash:"
                + Base64.encodeURL(
                    Array(SHA256.hash(data: serializer.serializedBytes))))

        // The answer to the signed request verifies through its session.
        let pki = try PassportPKI()
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        let responsePath = try scratch.write("credential.json", try Self.answer(entry.protocolName, entry.object, pki: pki))
        let verified = await WalletVerifierCommand.runCapturing([
            "web", "verify", "--response", responsePath, "--session", sessionPath, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)", "--at",
            Self.at, "--revocation", "off", "--format", "json",
        ])
        #expect(verified.code == 0, "\(verified.stdout)\(verified.stderr)")

        // Annex C only: one request; an OpenID4VP answer to it is a usage error (the session offered none).
        let annexSession = scratch.path("annex.json")
        let annexOnly = await WalletVerifierCommand.runCapturing(
            Self.requestArguments(scratch, key: keyPath, session: annexSession) + ["--protocol", "org-iso-mdoc"])
        #expect(annexOnly.code == 0)
        #expect(try Self.openID4VP(try json(annexOnly.stdout)) == nil)
        let refused = await WalletVerifierCommand.runCapturing([
            "web", "verify", "--response", responsePath, "--session", annexSession, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)", "--at",
            Self.at, "--revocation", "off",
        ])
        #expect(refused.code == 2, "\(refused.stderr)")

        // Signed without a key, both OpenID4VP variants, an unknown protocol: usage errors.
        for extra in [
            ["--protocol", "openid4vp-v1-signed"], ["--protocol", "openid4vp-v1-signed", "--protocol", "openid4vp-v1-unsigned"],
            ["--protocol", "openid4vp-v1-multisigned"],
        ] {
            let result = await WalletVerifierCommand.runCapturing(
                Self.requestArguments(scratch, key: keyPath, session: scratch.path("x.json")) + extra)
            #expect(result.code == 2, "\(extra): \(result.stderr)")
        }
    }
}
