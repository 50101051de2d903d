import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletIdentity
import WalletVerifierTestSupport

/// Costs of the stages of one in-app identity verification (`wallet-verifier-bench identity-stages`),
/// on the identity benchmark's envelope: the full verification first, then each stage with its share
/// of it, then the crypto floor's share (HPKE open + two ECDSA verifications) and what no stage
/// accounts for. The stages marked ▸ follow the verifier's own order (envelope, key, transcript,
/// HPKE, plaintext, the mdoc composition) and do not overlap; the identity checks themselves are
/// internal, so their work is measured through the public API they call.
enum IdentityStages {
    static func run(seconds: Double) async throws {
        print("identity stages (same envelope as the identity benchmark; IDENTITY_STAGE=a,b measures only the labels containing a or b)")
        var table = StageTable(filter: "IDENTITY_STAGE", seconds: seconds)
        let scenario = try IdentityBenchmark.scenario()
        let (verifier, envelope, nonce, context) = (scenario.verifier, scenario.envelope, scenario.nonce, scenario.context)
        let first = await verifier.verify(encryptedData: envelope, nonce: nonce, context: context)
        guard first.report.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }
        await table.full("full in-app verification (AppleIdentityVerifier.verify)") {
            _ = await verifier.verify(encryptedData: envelope, nonce: nonce, context: context)
        }
        let parsed = try AppleHPKEEnvelope(cbor: try CBORDecoder.decode(envelope))
        let transcript = scenario.transcript
        let info = Data(transcript.bytes)
        let recipient = scenario.recipient
        await table.floor("crypto floor: HPKE open + 2 × ECDSA P-256 verify") {
            var opener = try! HPKE.Recipient(
                privateKey: recipient, ciphersuite: IdentityBenchmark.suite, info: info, encapsulatedKey: Data(parsed.pkEm))
            _ = try! opener.open(parsed.data, authenticating: Data())
            scenario.signatures.verify()
        }

        // The envelope checks' work, in the verifier's order.
        // As the verifier reads the envelope: in place.
        await table.stage("envelope: AppleHPKEEnvelope read in place", part: true) { precondition(AppleHPKEEnvelope.read(envelope) != nil) }
        let keyRing = verifier.keyRing
        await table.stage("recipient key: key ring lookup by pkRHash", part: true) { _ = keyRing.key(forHash: parsed.pkRHash) }
        let (merchantID, teamID) = (verifier.merchantID, verifier.teamID)
        await table.stage("transcript: SessionTranscript + encoding + infoHash", part: true) {
            let built = SessionTranscript.appleInApp(nonce: nonce, merchantID: merchantID, teamID: teamID, recipientKeyHash: parsed.pkRHash)
            precondition(Array(SHA256.hash(data: built.bytes)) == parsed.infoHash)
        }
        await table.stage("HPKE open (P-256 DHKEM, HKDF, AES-128-GCM)", part: true) {
            var opener = try! HPKE.Recipient(
                privateKey: recipient, ciphersuite: IdentityBenchmark.suite, info: Data(transcript.bytes), encapsulatedKey: Data(parsed.pkEm))
            _ = try! opener.open(parsed.data, authenticating: Data())
        }
        var opener = try HPKE.Recipient(privateKey: recipient, ciphersuite: IdentityBenchmark.suite, info: info, encapsulatedKey: Data(parsed.pkEm))
        let plaintext = [UInt8](try opener.open(parsed.data, authenticating: Data()))
        // As the verifier reads `{"identity": DeviceResponse}`: in place.
        let decoder = CBORDecoder(knownTexts: .iso18013_5)
        await table.stage("plaintext: {\"identity\": DeviceResponse} decode", part: true) {
            var response: DeviceResponse?
            _ = decoder.readTextKeyedMap(plaintext[...]) { _, value in
                response = DeviceResponse(reading: &value)
                return response != nil
            }
            precondition(response?.documentResults.count == 1)
        }
        let response = try DeviceResponse(cborBytes: scenario.deviceResponse)

        // The composition every flow shares, on the decoded response, as the in-app flow runs it
        // (no request: expiry advisory; a deviceMac not allowed; revocation off as in the benchmark).
        let composition = MdocPresentationVerifier(mdocVerifier: verifier.mdocVerifier, revocation: verifier.revocation)
        guard
            await table.compositionStages(
                "mdoc composition + report (decoded response)", composition: composition,
                expectations: MdocPresentationExpectations(documentExpiry: .advisory), response: response, transcript: transcript,
                context: context, flow: "walletIdentity", signatures: scenario.signatures)
        else { return }
        let deviceResponse = scenario.deviceResponse
        await table.stage("MdocVerifier.verify of the decrypted DeviceResponse bytes") {
            _ = await verifier.mdocVerifier.verify(deviceResponse: deviceResponse, transcript: transcript, context: context, flow: "walletIdentity")
        }
        await table.stage("DeviceResponse(cborBytes:) of the decrypted DeviceResponse") { _ = try? DeviceResponse(cborBytes: deviceResponse) }
        // The HPKE open and the rest of a verification measured apart and one after the other: on some
        // machines the pair costs more than its two halves (each evicts the other's code and data),
        // which is part of what the stages above leave unaccounted.
        let policy = verifier.mdocVerifier.policy
        let expectations = MdocPresentationExpectations(documentExpiry: .advisory)
        await table.together(
            "HPKE open",
            {
                var opener = try! HPKE.Recipient(
                    privateKey: recipient, ciphersuite: IdentityBenchmark.suite, info: Data(transcript.bytes), encapsulatedKey: Data(parsed.pkEm))
                _ = try! opener.open(parsed.data, authenticating: Data())
            },
            then: "plaintext decode + composition",
            {
                var response: DeviceResponse?
                _ = decoder.readTextKeyedMap(plaintext[...]) { _, value in
                    response = DeviceResponse(reading: &value)
                    return response != nil
                }
                var runner = CheckRunner(
                    policy: verifier.mdocVerifier.requirements(for: expectations), context: context.allowingClockSkew(policy.clockSkew))
                _ = await composition.verify(
                    response!, transcript: transcript, readerKey: nil, expectations: expectations, deviceMacAllowed: false, runner: &runner,
                    flow: "walletIdentity")
                _ = runner.report(flow: "walletIdentity")
            })
        table.summary()
    }
}
