import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport

@testable import WebIdentity

/// The wallet side written by nobody here: joserfc and cbor2 (PyPI, pinned in scripts/test, in
/// `.venv-interop`) compute the transcript and encrypt the response from our request object alone.
/// Skipped when that Python is missing, unless CI=true.
@Suite struct OpenID4VPInteropTests {
    /// The interop wallet's standard output for `input`.
    static func wallet(_ input: [String: Any]) async throws -> String {
        try await InteropPython.run("Tests/WebIdentityTests/Interop/oid4vp_wallet.py", input: input).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func available() -> Bool {
        if InteropPython.python != nil { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("python with joserfc and cbor2 is not installed in .venv-interop (scripts/test installs it)")
        }
        return false
    }

    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
    let origin = "https://verifier.example"

    @Test(arguments: ["A128GCM", "A256GCM"])
    func anIndependentWalletAnswerIsAccepted(_ enc: String) async throws {
        guard Self.available() else { return }
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let documentRequest = WebDocumentRequest(
            docType: PhotoIDFixture.docType,
            elements: PhotoIDFixture.defaultElements.map { .init(nameSpace: $0.nameSpace, identifier: $0.identifier) })
        let request = try OpenID4VPRequest(requests: [documentRequest], origin: origin, recipientPublicKey: recipient.publicKey)
        let requestObject = try JSONSerialization.jsonObject(with: Data(request.requestObject))

        // (a) The transcript, computed independently from the request object.
        let transcript = try await Self.wallet(["mode": "transcript", "request": requestObject, "origin": origin])
        #expect(transcript == Hex.encode(request.sessionTranscript.bytes))

        // (b) Our fixture DeviceResponse, encrypted by joserfc with the request's jwks.
        let deviceResponse = try PhotoIDFixture().deviceResponse(
            pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: request.sessionTranscript)
        let submission = try await Self.wallet([
            "mode": "encrypt", "request": requestObject, "deviceResponse": Base64.encodeURL(deviceResponse), "enc": enc,
        ])
        let verifier = OpenID4VPVerifier(
            mdocVerifier: MdocVerifier(trustStore: .includingPassports([pki.iaca]), policy: .passport), revocation: .off(because: "not under test"))
        let report = await verifier.verify(response: Array(submission.utf8), session: request.session, recipientKeys: [recipient], context: .at(time))
            .report
        #expect(report.verdict == .accepted, "\(report.failures.map { "\($0.id): \($0.message)" })")
        #expect(report.check(.webOpenID4VPResponse)?.details["enc"] == enc)
    }
}
