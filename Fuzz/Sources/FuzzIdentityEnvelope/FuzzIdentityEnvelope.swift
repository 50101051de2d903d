import Foundation
import FuzzSupport
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletIdentity

// The `identity-envelope` target: arbitrary bytes as `PKIdentityDocument.encryptedData` → the
// APPLE-HPKE-v1 envelope → HPKE open with Apple's sample merchant key → the plaintext → mdoc
// verification against Apple's sample IACA, with the sample's nonce, merchant and team, at 2022-04-01.
// Oracle: FuzzSupport.requireSeedResult.

func sample(_ name: String) -> [UInt8] { testVector("mdoc/apple-verify-with-wallet-sample/sample/" + name) }
let nonce: [UInt8] = {
    let text = String(decoding: sample("session_transcript_parameters.txt"), as: UTF8.self)
    let line = text.split(separator: "\n").first { $0.hasPrefix("Nonce") }!
    return hexBytes(String(line.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces))!
}()
let verifier = AppleIdentityVerifier(
    keyRing: IdentityKeyRing([
        try! IdentityKeyRing.loadPrivateKey(pem: String(decoding: sample("merchant_encryption.key"), as: UTF8.self), name: "merchant_encryption.key")
    ]),
    merchantID: "PassKit_Identity_Test_Merchant_ID", teamID: "PassKit_Identity_Test_Team_ID",
    trustStore: IACATrustStore(certificates: try! IACATrustStore.certificates(in: sample("issuer_root.crt"), name: "issuer_root.crt")),
    revocation: .off(because: "the fuzz target exercises the parsers"))
let time = fixedTime("2022-04-01T00:00:00Z")
/// The envelope is hex in the vectors; the seed corpus holds its bytes.
let envelope: [UInt8] = {
    hexBytes(String(decoding: sample("hpke_envelope.cbor"), as: UTF8.self).filter(\.isHexDigit))!
}()
let seed: (docTypes: [String], elements: [String: String]) = seedResult {
    let result = await verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(time))
    precondition(result.report.verdict == .accepted, "the seed does not verify: \(result.report.failures.map(\.message))")
    return (result.documents.map(\.docType), disclosedElements(result.documents))
}

func run(_ bytes: [UInt8]) async {
    let result = await verifier.verify(encryptedData: bytes, nonce: nonce, context: .at(time))
    requireSeedResult(result.report, result.documents, seedDocTypes: seed.docTypes, seedElements: seed.elements, input: bytes)
}

/// Writes the seed corpus (FUZZ_WRITE_SEEDS=DIR).
func writeSeeds(to directory: String) {
    FileManager.default.createFile(atPath: directory + "/apple-sample-envelope.cbor", contents: Data(envelope))
}

@_cdecl("FuzzIdentityEnvelope_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, writeSeeds: writeSeeds(to:), prepare: { _ = seed.elements.count }, .asynchronous(run))
}
