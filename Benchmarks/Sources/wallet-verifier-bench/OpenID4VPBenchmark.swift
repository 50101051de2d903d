import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletJOSE
import WalletVerifierTestSupport
import WebIdentity

/// A whole OpenID4VP 1.0 verification over the Digital Credentials API (`dc_api.jwt`: a JWE, ECDH-ES
/// on P-256 with A128GCM, around a `vp_token` holding one mDL DeviceResponse signed over the
/// OpenID4VPDCAPIHandover transcript) against its cryptography alone: ECDH + Concat KDF + AES-GCM
/// open + the two ECDSA P-256 verifications. `OPENID4VP_ENC=A256GCM` encrypts with A256GCM instead.
///
/// The same response is verified each time. That is fair: ``OpenID4VPVerifier`` keeps no state of a
/// request (the session record is data, the request's single use lives in the request sessions'
/// replay store, which the mdoc and identity rows leave out as well), so nothing of one verification
/// is reused by the next except the chain cache every verifier shares (as in the other rows). The
/// provisional `replay.nonce` outcome and a consumer that reports success are passed, so the
/// verifier's own binding logic (consume only once the device signature verified) runs every time.
enum OpenID4VPBenchmark {
    static let origin = "https://verifier.example"

    /// The response every OpenID4VP benchmark uses, its verifier and its cryptography prepared ahead.
    struct Scenario {
        let encryption: JWEContentEncryption
        let recipient: P256.KeyAgreement.PrivateKey
        let session: OpenID4VPSession
        let transcript: SessionTranscript
        /// The DeviceResponse in the vp_token.
        let deviceResponse: [UInt8]
        /// The compact JWE.
        let jwe: String
        /// What the page posts: the credential's data, `{"response": "<JWE>"}`.
        let response: [UInt8]
        let verifier: OpenID4VPVerifier
        let context: VerificationContext
        let signatures: SignatureFloor

        /// One verification as the request sessions run it, with a provisional `replay.nonce` and a
        /// consumer that reports success.
        func verify() async -> WebVerificationResult {
            await verifier.verify(
                response: response, session: session, recipientKeys: [recipient], context: context,
                nonceOutcome: .passed("The request was found, unused (provisional)."), consume: { .passed(OpenID4VPBenchmark.consumed) })
        }
    }

    static let consumed = "The request was consumed."

    static func scenario() throws -> Scenario {
        let encryption = ProcessInfo.processInfo.environment["OPENID4VP_ENC"].flatMap(JWEContentEncryption.init(rawValue:)) ?? .a128gcm
        let recipient = P256.KeyAgreement.PrivateKey()
        let elements = MdocBenchmark.mdlElements().map { WebDocumentRequest.Element(nameSpace: $0.nameSpace, identifier: $0.identifier) }
        let request = try OpenID4VPRequest(
            requests: [WebDocumentRequest(docType: MdocFixture.mDL, elements: elements)], origin: origin, recipientPublicKey: recipient.publicKey)
        let transcript = request.sessionTranscript
        let scenario = try MdocBenchmark.scenario(transcript: transcript)
        let payload = #"{"vp_token":{"\#(request.dcqlQuery.credentials[0].id)":["\#(base64URL(scenario.bytes))"]}}"#
        let jwe = try JWE.encrypt(Array(payload.utf8), to: recipient.publicKey, encryption: encryption, keyID: request.session.keyID)
        let verifier = OpenID4VPVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore(certificates: [scenario.pki.iaca]), policy: .iso18013Strict),
            revocation: .off(because: "the benchmark measures the other checks"))
        let signatures = try SignatureFloor(
            response: scenario.bytes, transcript: transcript, issuerKey: scenario.pki.dsKey.publicKey, deviceKey: scenario.deviceKey.publicKey)
        return Scenario(
            encryption: encryption, recipient: recipient, session: request.session, transcript: transcript, deviceResponse: scenario.bytes,
            jwe: jwe, response: Array(#"{"response":"\#(jwe)"}"#.utf8), verifier: verifier,
            context: .at(scenario.fixture.validFrom.addingTimeInterval(3600)), signatures: signatures!)
    }

    /// The JWE's key agreement, KDF and decryption with the JWE already parsed (a floor's part).
    struct Decryption {
        let recipient: P256.KeyAgreement.PrivateKey
        let jwe: JWE
        let box: AES.GCM.SealedBox
        let aad: [UInt8]

        init(_ scenario: Scenario) throws {
            recipient = scenario.recipient
            jwe = try JWE(compact: scenario.jwe)
            box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: jwe.iv), ciphertext: jwe.ciphertext, tag: jwe.tag)
            aad = Array(jwe.protectedHeaderText.utf8)
        }

        func open() throws {
            let shared = try recipient.sharedSecretFromKeyAgreement(with: jwe.ephemeralKey)
            let key = ConcatKDF.derive(
                sharedSecret: shared.withUnsafeBytes { Array($0) }, algorithmID: Array(jwe.encryption.rawValue.utf8),
                partyUInfo: jwe.agreementPartyUInfo, partyVInfo: jwe.agreementPartyVInfo, keyBitCount: jwe.encryption.keyBitCount)
            _ = try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: aad)
        }
    }

    /// Whether the scenario's response is accepted with the request consumed; prints why not.
    static func accepted(_ scenario: Scenario) async -> Bool {
        let report = await scenario.verify().report
        guard report.verdict == .accepted, report.check(.replayNonce)?.message == consumed else {
            print("  setup failed: \(report.failures.map { "\($0.id.rawValue): \($0.message)" })")
            return false
        }
        return true
    }

    static func run(seconds: Double) async throws {
        let scenario = try scenario()
        print("openid4vp: dc_api.jwt response (ECDH-ES, \(scenario.encryption.rawValue)) with one mDL (15 elements), openid4vp-v1-unsigned")
        guard await accepted(scenario) else { return }
        let decryption = try Decryption(scenario)
        let signatures = scenario.signatures
        try await measurePair(
            full: "full verification (JWE, vp_token, DCQL, 13 mdoc checks)",
            floor: "crypto floor: ECDH + KDF + AES-GCM + 2 × ECDSA P-256", seconds: seconds * 2, target: 0.85
        ) {
            _ = await scenario.verify()
        } floor: {
            try decryption.open()
            signatures.verify()
        }
    }

    /// Unpadded base64url (RFC 4648 §5), as a vp_token carries a DeviceResponse.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
