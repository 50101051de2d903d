import Crypto
import Foundation
import FuzzSupport
import MdocVerifier
import VerificationCore
import WalletJOSE
import WebIdentity

// The `openid4vp-response` target: OpenID4VP over the DC API. The first byte picks what the rest is:
//   even: a page's submission ({"response": JWE}, the credential JSON around it, or the JWE text) →
//         strict JSON, JWE compact parsing (header, epk, base64url), ECDH-ES + Concat KDF, AES-GCM;
//   odd:  a decrypted payload, encrypted here to the request's key first → vp_token parsing, DCQL
//         matching, DeviceResponse decoding and the mdoc checks.
// The key is OpenID4VP 1.0 §8.3's example key (kid "ac"); the session asks for an mDL from origin
// https://verifier.example; ISO 18013-5 Annex D's document signer is pinned, at its time. Annex D's
// response is authenticated with a deviceMac (refused over the DC API) for another transcript.
// Oracle: no crash, trap, leak or timeout, and never an accepted verdict (no input can carry a
// device signature over this session's transcript).

func annexD(_ name: String) -> [UInt8] { testVector("mdoc/iso18013-5-annex-d/" + name) }
let recipientKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: Array(Data(base64Encoded: "Et+3ce0omz8/TuZ96Df9lp0GAaaDoUnDe6X+CRO7Aww=")!))
let session = OpenID4VPSession(
    protocol: .unsigned, nonce: "n-0S6_WzA2Mj-n-0S6_WzA2Mj", origin: "https://verifier.example",
    jwkThumbprint: Data(JWK(publicKey: recipientKey.publicKey).thumbprint).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""),
    keyID: "ac", clientID: nil,
    credentials: [
        "org_iso_18013_5_1_mDL": WebDocumentRequest(
            docType: "org.iso.18013.5.1.mDL",
            elements: ["family_name", "document_number", "driving_privileges"].map { .init(nameSpace: "org.iso.18013.5.1", identifier: $0) })
    ])
let verifier = OpenID4VPVerifier(
    mdocVerifier: MdocVerifier(
        trustStore: try! IACATrustStore(certificates: IACATrustStore.certificates(in: annexD("document_signer.pem"), name: "ds"))),
    revocation: .off(because: "the fuzz target exercises the parsers"))
let time = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01

func run(_ input: [UInt8]) async {
    guard let mode = input.first else { return }
    var submission = Array(input.dropFirst())
    if mode % 2 == 1 {
        guard let jwe = try? JWE.encrypt(submission, to: recipientKey.publicKey, keyID: "ac") else { return }
        submission = Array(jwe.utf8)
    }
    let result = await verifier.verify(response: submission, session: session, recipientKeys: [recipientKey], context: .at(time))
    if result.report.verdict == .accepted {
        fatalError("fuzz: an OpenID4VP response was accepted without a device signature over the session transcript")
    }
}

@_cdecl("FuzzOpenID4VPResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, prepare: { _ = session.keyID }, .asynchronous(run))
}
