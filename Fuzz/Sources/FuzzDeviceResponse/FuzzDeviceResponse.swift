import Crypto
import Foundation
import FuzzSupport
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

// The `device-response` target: arbitrary bytes through the CBOR decoder, diagnostic notation,
// element rendering, the nesting check, and a whole mdoc verification of ISO 18013-5 Annex D (its
// document signer pinned, its reader key, at its time). Oracle: FuzzSupport.requireSeedResult.

func annexD(_ name: String) -> [UInt8] { testVector("mdoc/iso18013-5-annex-d/" + name) }
let transcript = try! SessionTranscript(bytes: annexD("session_transcript_bytes.cbor"))
let readerKey = try! P256.KeyAgreement.PrivateKey(
    rawRepresentation: hexBytes(String(decoding: annexD("ereader_key_private_d.hex"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))!
)
let verifier = MdocVerifier(trustStore: try! IACATrustStore(certificates: IACATrustStore.certificates(in: annexD("document_signer.pem"), name: "ds")))
let time = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01
let seed: [String: String] = seedResult {
    let result = await verifier.verify(
        deviceResponse: annexD("device_response.cbor"), transcript: transcript, readerKey: readerKey, context: .at(time))
    precondition(result.report.verdict == .accepted, "the seed does not verify")
    return disclosedElements(result.documents)
}

func run(_ bytes: [UInt8]) async {
    if let node = try? CBORDecoder.decode(bytes) {
        _ = CBORDiagnostic(style: .compact).format(node)
        _ = ElementValue(node).json
        _ = try? node.checkEmbeddedNesting(depth: 1)
    }
    let result = await verifier.verify(deviceResponse: bytes, transcript: transcript, readerKey: readerKey, context: .at(time))
    _ = disclosedElements(result.documents)
    requireSeedResult(result.report, result.documents, seedDocTypes: ["org.iso.18013.5.1.mDL"], seedElements: seed, input: bytes)
}

@_cdecl("FuzzDeviceResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, prepare: { _ = seed.count }, .asynchronous(run))
}
