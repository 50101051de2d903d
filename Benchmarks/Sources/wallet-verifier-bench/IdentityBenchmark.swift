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
    static func run(seconds: Double) async throws {
        print("identity: APPLE-HPKE-v1 envelope with one mDL (15 elements), production policy")
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
        let time = fixture.validFrom.addingTimeInterval(3600)
        let first = await verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(time))
        guard first.report.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }

        let parsed = try AppleHPKEEnvelope(cbor: try CBORDecoder.decode(envelope))
        let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
        let info = Data(transcript.bytes)
        guard
            let signatures = try SignatureFloor(
                response: response, transcript: transcript, issuerKey: pki.dsKey.publicKey, deviceKey: deviceKey.publicKey)
        else { return }
        try await measurePair(
            full: "full in-app verification", floor: "crypto floor: HPKE open + 2 × ECDSA P-256 verify",
            seconds: seconds * 2, target: 0.7
        ) {
            _ = await verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(time))
        } floor: {
            var opener = try HPKE.Recipient(privateKey: recipient, ciphersuite: suite, info: info, encapsulatedKey: Data(parsed.pkEm))
            _ = try opener.open(parsed.data, authenticating: Data())
            signatures.verify()
        }
    }
}
