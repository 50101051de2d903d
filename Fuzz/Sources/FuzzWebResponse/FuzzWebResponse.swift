import Foundation
import FuzzSupport
import Mdoc
import MdocVerifier
import VerificationCore
import WebIdentity
import X509

// The `web-response` target: arbitrary bytes as what a page submits (`web verify --response`, the
// service's `credential`/`response`): the DC API credential JSON, base64url text or CBOR →
// EncryptedResponse → HPKE open with the real Chrome capture's recipient key → mdoc verification
// of the capture (its demo signer pinned, its origin and EncryptionInfo, at its README's time).
// Oracle: FuzzSupport.requireSeedResult.

func capture(_ name: String) -> [UInt8] { testVector("mdoc/dcapi-annex-c-chrome-android-jmandel/" + name) }
let origin = "http://127.0.0.1:3010"
let encryptionInfo = String(decoding: capture("request/encryption-info.b64u"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
let recipientKey = try! WebRecipientKey.load(contents: capture("request/recipient-private.jwk.json"), name: "recipient-private.jwk.json")
let time = fixedTime("2026-05-01T17:30:00Z")
let verifier: WebIdentityVerifier = {
    let response = try! DeviceResponse(cborBytes: capture("response/device-response.cbor"))
    let signer = try! Certificate(derEncoded: response.documents[0].issuerSigned.issuerAuth.headers.x5chain()[0])
    // ISO strict, except that the demo document signer has no Annex B extensions and no country.
    var policy = MdocVerificationPolicy.iso18013Strict
    policy.requirements = policy.requirements.with(.mdocIssuerCertificateProfile, .advisory).with(.mdocIssuerCountry, .advisory)
    return WebIdentityVerifier(
        trustStore: IACATrustStore(certificates: [signer]), policy: policy, revocation: .off(because: "the fuzz target exercises the parsers"))
}()
let seed: (docTypes: [String], elements: [String: String]) = seedResult {
    let bytes = try! DCAPIEncryptedResponse.responseBytes(fromSubmission: capture("response/wallet-response.digital-credential.json"))
    let result = await verifier.verify(
        response: bytes, encryptionInfo: encryptionInfo, origin: origin, recipientKey: recipientKey, context: .at(time))
    precondition(result.report.verdict == .accepted, "the seed does not verify: \(result.report.failures.map(\.message))")
    return (result.documents.map(\.docType), disclosedElements(result.documents))
}

func run(_ bytes: [UInt8]) async {
    // What a page or file submits is told apart by protocol first (never a trap, whatever the bytes);
    // an Annex C credential's bytes are exactly what the Annex C reader returns.
    if case .annexC(let told) = try? WebCredential.fromSubmission(bytes),
        let direct = try? DCAPIEncryptedResponse.responseBytes(fromSubmission: bytes)
    {
        precondition(told == direct, "WebCredential and DCAPIEncryptedResponse read an Annex C submission differently")
    }
    let response = (try? DCAPIEncryptedResponse.responseBytes(fromSubmission: bytes)) ?? bytes
    let result = await verifier.verify(
        response: response, encryptionInfo: encryptionInfo, origin: origin, recipientKey: recipientKey, context: .at(time))
    requireSeedResult(result.report, result.documents, seedDocTypes: seed.docTypes, seedElements: seed.elements, input: bytes)
}

@_cdecl("FuzzWebResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, prepare: { _ = seed.elements.count }, .asynchronous(run))
}
