import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletIdentity
import WalletVerifierTestSupport

/// A whole in-app verification (HPKE open + full mdoc verification) against HPKE open + two ECDSA
/// verifications alone.
enum IdentityBenchmark {
    static let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    /// The envelope every identity benchmark uses, its verifier and the floor's signatures.
    struct Scenario {
        let recipient: P256.KeyAgreement.PrivateKey
        let nonce: [UInt8]
        let transcript: SessionTranscript
        /// The DeviceResponse inside the envelope.
        let deviceResponse: [UInt8]
        let envelope: [UInt8]
        let verifier: AppleIdentityVerifier
        let context: VerificationContext
        let signatures: SignatureFloor
    }

    static func scenario() throws -> Scenario {
        let recipient = P256.KeyAgreement.PrivateKey()
        let nonce = Array(repeating: UInt8(9), count: 32)
        let transcript = IdentityEnvelopeFixture.transcript(nonce: nonce, merchantID: "merchant", teamID: "team", recipient: recipient.publicKey)
        let scenario = try MdocBenchmark.scenario(transcript: transcript)
        let (pki, deviceKey, fixture, response) = (scenario.pki, scenario.deviceKey, scenario.fixture, scenario.bytes)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: recipient.publicKey, nonce: nonce, merchantID: "merchant", teamID: "team")
        let verifier = AppleIdentityVerifier(
            keyRing: IdentityKeyRing([recipient]), merchantID: "merchant", teamID: "team", trustStore: IACATrustStore(certificates: [pki.iaca]),
            revocation: .off(because: "the benchmark measures the other checks"))
        let signatures = try SignatureFloor(
            response: response, transcript: transcript, issuerKey: pki.dsKey.publicKey, deviceKey: deviceKey.publicKey)
        return Scenario(
            recipient: recipient, nonce: nonce, transcript: transcript, deviceResponse: response, envelope: envelope, verifier: verifier,
            context: .at(fixture.validFrom.addingTimeInterval(3600)), signatures: signatures!)
    }

    static func run(seconds: Double) async throws {
        print("identity: APPLE-HPKE-v1 envelope with one mDL (15 elements), production policy")
        let scenario = try scenario()
        let (recipient, verifier, envelope, nonce, context) = (
            scenario.recipient, scenario.verifier, scenario.envelope, scenario.nonce, scenario.context
        )
        let first = await verifier.verify(encryptedData: envelope, nonce: nonce, context: context)
        guard first.report.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }

        let parsed = try AppleHPKEEnvelope(cbor: try CBORDecoder.decode(envelope))
        let info = Data(scenario.transcript.bytes)
        let signatures = scenario.signatures
        try await measurePair(
            full: "full in-app verification", floor: "crypto floor: HPKE open + 2 × ECDSA P-256 verify",
            seconds: seconds * 2, target: 0.85
        ) {
            _ = await verifier.verify(encryptedData: envelope, nonce: nonce, context: context)
        } floor: {
            var opener = try HPKE.Recipient(privateKey: recipient, ciphersuite: suite, info: info, encapsulatedKey: Data(parsed.pkEm))
            _ = try opener.open(parsed.data, authenticating: Data())
            signatures.verify()
        }
    }
}
