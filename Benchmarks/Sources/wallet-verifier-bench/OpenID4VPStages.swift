import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletJOSE
import WalletVerifierTestSupport
import WebIdentity

/// Costs of the stages of one OpenID4VP verification (`wallet-verifier-bench openid4vp-stages`), on
/// the openid4vp benchmark's response: the full verification first, then each stage with its share
/// of it, then the crypto floor's share (ECDH + KDF + AES-GCM + two ECDSA verifications) and what no
/// stage accounts for. The stages marked ▸ follow the verifier's order (submission, JWE, key,
/// decryption, vp_token, DeviceResponse, the mdoc composition) and do not overlap; the flow's own
/// checks are internal, so their work is measured through the public API they call.
enum OpenID4VPStages {
    static func run(seconds: Double) async throws {
        print("openid4vp stages (same response as the openid4vp benchmark; OPENID4VP_STAGE=a,b measures only the labels containing a or b)")
        var table = StageTable(filter: "OPENID4VP_STAGE", seconds: seconds)
        let scenario = try OpenID4VPBenchmark.scenario()
        guard await OpenID4VPBenchmark.accepted(scenario) else { return }
        await table.full("full verification (OpenID4VPVerifier.verify)") { _ = await scenario.verify() }
        let decryption = try OpenID4VPBenchmark.Decryption(scenario)
        await table.floor("crypto floor: ECDH + KDF + AES-GCM + 2 × ECDSA P-256") {
            try! decryption.open()
            scenario.signatures.verify()
        }

        let (response, session, recipient) = (scenario.response, scenario.session, scenario.recipient)
        await table.stage("submission: JSON → JWE text", part: true) {
            _ = try? OpenID4VPResponse.jweText(fromSubmission: response, expected: session.protocol)
        }
        let text = scenario.jwe
        await table.stage("JWE(compact:): header JSON, epk, base64url parts", part: true) { _ = try? JWE(compact: text) }
        // The verifier computes each recipient key's thumbprint once (RecipientKeyThumbprints): shown, not a part.
        await table.stage("key: RFC 7638 thumbprint (once per key, then cached)") {
            precondition(OpenID4VPBenchmark.base64URL(JWK(publicKey: recipient.publicKey).thumbprint) == session.jwkThumbprint)
        }
        let jwe = try JWE(compact: text)
        await table.stage("JWE decrypt (ECDH + Concat KDF + AES-GCM)", part: true) { _ = try! jwe.decrypt(with: recipient) }
        await table.stage("  of which ECDH + KDF + AES-GCM (JWE parsed)") { try! decryption.open() }
        let plaintext = try jwe.decrypt(with: recipient)
        await table.stage("vp_token: JSON + base64url of the DeviceResponse", part: true) {
            _ = try? OpenID4VPResponse.vpToken(payload: plaintext)
        }
        let presentation = try OpenID4VPResponse.vpToken(payload: plaintext)[0].presentations[0]
        await table.stage("DeviceResponse(cborBytes:) of the presentation", part: true) { _ = try? DeviceResponse(cborBytes: presentation) }
        let decoded = try DeviceResponse(cborBytes: presentation)

        // The composition every flow shares, as the web flow runs it (expiry advisory, a deviceMac not
        // allowed, revocation off as in the benchmark) but without web.request.elements (internal).
        let composition = MdocPresentationVerifier(mdocVerifier: scenario.verifier.mdocVerifier, revocation: scenario.verifier.revocation)
        guard
            await table.compositionStages(
                "mdoc composition + report (no web.request.elements)", composition: composition,
                expectations: MdocPresentationExpectations(requestedDocTypes: [MdocFixture.mDL], documentExpiry: .advisory), response: decoded,
                transcript: scenario.transcript, context: scenario.context, flow: "webIdentity", signatures: scenario.signatures)
        else { return }
        // The JWE's decryption and the rest of a verification measured apart and one after the other
        // (see the identity stages: the pair can cost more than its two halves).
        let verifier = scenario.verifier.mdocVerifier
        let expectations = MdocPresentationExpectations(requestedDocTypes: [MdocFixture.mDL], documentExpiry: .advisory)
        let (transcript, context) = (scenario.transcript, scenario.context)
        await table.together(
            "JWE decrypt", { _ = try! jwe.decrypt(with: recipient) },
            then: "vp_token + DeviceResponse + composition",
            {
                let presentation = try! OpenID4VPResponse.vpToken(payload: plaintext)[0].presentations[0]
                let response = try! DeviceResponse(cborBytes: presentation)
                var runner = CheckRunner(
                    policy: verifier.requirements(for: expectations), context: context.allowingClockSkew(verifier.policy.clockSkew))
                _ = await composition.verify(
                    response, transcript: transcript, readerKey: nil, expectations: expectations, deviceMacAllowed: false, runner: &runner,
                    flow: "webIdentity")
                _ = runner.report(flow: "webIdentity")
            })
        table.summary()
    }
}
