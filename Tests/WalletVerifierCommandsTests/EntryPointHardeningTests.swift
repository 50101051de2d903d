import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierCommands
import WalletVerifierTestSupport
import WebIdentity

/// The security review's attacks through every command that reads them (HardeningCommandTests has
/// `cbor inspect` and `identity verify`): `mdoc verify` and `web verify` with 10⁵ nested tag-24 items,
/// in an issuer-signed and in a device-signed element; `applepay decrypt` and every mesh size of the
/// review through `identity verify`; an under-age answer through `identity verify`.
@Suite struct EntryPointHardeningTests {
    static let levels = 100_000
    static let at = RFC3339.format(ServiceFixture.time)

    static func write(_ bytes: [UInt8], in fixture: ServiceFixture, _ name: String) throws -> String {
        let path = fixture.directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func object(_ stdout: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
    }

    static func reasons(_ object: [String: Any]) -> [String] {
        ((object["checks"] as? [[String: Any]]) ?? []).compactMap { check in
            (check["status"] as? String) == "failed" ? "\(check["id"] as? String ?? "")/\(check["reason"] as? String ?? "")" : nil
        }
    }

    /// `mdoc verify`: the nesting in an issuer-signed element, then in a device-signed one.
    @Test(arguments: ["issuer", "device"])
    func mdocVerifyOfDeepNesting(signedBy: String) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var mdoc = MdocFixture()
        let nested = try HostileCBOR.nestedTag24Node(levels: Self.levels)
        if signedBy == "issuer" {
            mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "given_name", nested)]
        } else {
            mdoc.deviceSignedElements = [MdocFixture.Element(MdocFixture.isoNameSpace, "given_name", nested)]
            mdoc.keyAuthorizations = (nameSpaces: [MdocFixture.isoNameSpace], dataElements: [:])
        }
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: fixture.webOrigin)
        let response = try Self.write(
            try mdoc.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript), in: fixture, "response.cbor")
        let transcriptPath = try Self.write(transcript.bytes, in: fixture, "transcript.cbor")
        let result = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", response, "--session-transcript", transcriptPath, "--trust", fixture.iacaPath,
            "--at", Self.at, "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stderr)")
        let object = try Self.object(result.stdout)
        #expect(object["verdict"] as? String == "rejected")
        #expect(Self.reasons(object).contains { $0.hasSuffix("/depthLimitExceeded") }, "\(Self.reasons(object))")
    }

    /// `web verify`: a wallet's encrypted answer whose element value is 10⁵ nested tag-24 items.
    @Test func webVerifyOfDeepNesting() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var mdoc = MdocFixture()
        mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "family_name", try HostileCBOR.nestedTag24Node(levels: Self.levels))]
        let encryptionInfo = try DCAPIEncryptionInfo(nonce: Array(repeating: 7, count: 16), recipientPublicKey: fixture.webKey.publicKey).base64URL
        let response = try Self.write(
            try fixture.webResponse(encryptionInfo: encryptionInfo, origin: fixture.webOrigin, fixture: mdoc).cbor, in: fixture, "response.cbor")
        let result = await WalletVerifierCommand.runCapturing([
            "web", "verify", "--response", response, "--encryption-info", encryptionInfo, "--origin", fixture.webOrigin,
            "--recipient-key", fixture.webKeyPath, "--trust", fixture.iacaPath, "--at", Self.at, "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stderr)")
        let object = try Self.object(result.stdout)
        #expect(object["verdict"] as? String == "rejected")
        #expect(Self.reasons(object).contains("mdoc.document.structure/depthLimitExceeded"), "\(Self.reasons(object))")
    }

    /// Every mesh of the review (width × depth) in an identity response's x5chain, through the CLI.
    @Test(arguments: [(3, 10), (3, 11), (3, 12), (2, 16)])
    func identityVerifyRefusesEveryMeshQuickly(width: Int, depth: Int) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let mesh = try CertificateMesh(width: width, depth: depth)
        var mdoc = MdocFixture()
        mdoc.additionalCertificates = mesh.meshDER
        let pki = MdocPKI(iacaKey: fixture.mdocPKI.iacaKey, iaca: fixture.mdocPKI.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
        let nonce = [UInt8](repeating: 3, count: 32)
        let envelope = try Self.write(try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: pki), in: fixture, "mesh.cbor")
        let start = ContinuousClock.now
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
            "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust", fixture.iacaPath, "--at", Self.at,
        ])
        let elapsed = ContinuousClock.now - start
        #expect(result.code == 1)
        #expect(result.stdout.contains("chainTooLong"))
        #expect(elapsed < CertificateMesh.endToEndBound, "\(width)×\(depth): \(elapsed)")
    }

    /// The review's meshes as extra certificates of an Apple Pay signature, through `applepay decrypt`.
    @Test(arguments: [(3, 10), (3, 12), (2, 16)])
    func applePayDecryptRefusesAMeshQuickly(width: Int, depth: Int) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let mesh = try CertificateMesh(width: width, depth: depth)
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
        var builder = ApplePayTokenBuilder(merchant: fixture.merchant, signingTime: signingTime)
        builder.cms = { $0.extraCertificates = mesh.meshDER }
        let token = try Self.write(try builder.build().json(asPKPaymentToken: true), in: fixture, "token.json")
        let start = ContinuousClock.now
        let result = await WalletVerifierCommand.runCapturing([
            "applepay", "decrypt", "--token", token, "--merchant-cert", fixture.merchantCertificatePath, "--merchant-key", fixture.merchantKeyPath,
            "--root", fixture.applePayRootPath, "--at", RFC3339.format(signingTime), "--format", "json",
        ])
        let elapsed = ContinuousClock.now - start
        #expect(result.code == 1, "\(result.stderr)")
        let object = try Self.object(result.stdout)
        #expect(object["verdict"] as? String == "rejected")
        #expect(object["payment"] == nil)
        #expect(elapsed < CertificateMesh.endToEndBound, "\(width)×\(depth): \(elapsed)")
    }

    /// age(atLeast: 21) answered "no" (age_over_21 false): rejected with ageBelowMinimum, exit 1.
    @Test func identityVerifyOfAnUnderAgeAnswerIsRejected() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var mdoc = MdocFixture()
        mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "age_over_21", .bool(false))]
        let nonce = [UInt8](repeating: 5, count: 32)
        let envelope = try Self.write(try fixture.identityResponse(nonce: nonce, fixture: mdoc), in: fixture, "under-age.cbor")
        let request = try Self.write(
            Array(#"{"document":"driversLicense","elements":[{"element":"age","atLeast":21,"intentToStore":"willNotStore"}]}"#.utf8),
            in: fixture, "request.json")
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
            "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust", fixture.iacaPath, "--at", Self.at, "--request", request, "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stdout)")
        let object = try Self.object(result.stdout)
        #expect(object["verdict"] as? String == "rejected")
        #expect(Self.reasons(object) == ["identity.request.age/ageBelowMinimum"])
        #expect(object["claims"] == nil)
    }
}
