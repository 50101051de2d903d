import Crypto
import Foundation
import Mdoc
import MdocVerifier
import WalletCBOR
import WalletCOSE
import WalletVerifierTestSupport
import X509

/// Costs of the stages of one mdoc verification, to see where time goes (`wallet-verifier-bench mdoc-stages`).
enum MdocStages {
    static func run(seconds: Double) async throws {
        print("mdoc stages (same response as the mdoc benchmark)")
        let scenario = try MdocBenchmark.scenario(transcript: MdocBenchmark.transcript)
        let bytes = scenario.bytes
        let der = scenario.pki.dsDER
        _ = await measure("CBOR decode of the DeviceResponse", seconds: seconds) { _ = try? CBORDecoder.decode(bytes) }
        _ = await measure("DeviceResponse model decode (incl. items)", seconds: seconds) { _ = try? DeviceResponse(cborBytes: bytes) }
        let response = try DeviceResponse(cborBytes: bytes)
        let payload = response.documents[0].issuerSigned.issuerAuth.payload!
        _ = await measure("MSO decode", seconds: seconds) { _ = try? EmbeddedCBOR<MobileSecurityObject>(cbor: try CBORDecoder.decode(payload)) }
        _ = await measure("Certificate(derEncoded:) of the DS", seconds: seconds) { _ = try? Certificate(derEncoded: der) }
        let certificate = try Certificate(derEncoded: der)
        _ = await measure("subject description", seconds: seconds) { _ = certificate.subject.description }
        let items = response.documents[0].issuerSigned.nameSpaces.flatMap(\.items)
        _ = await measure("\(items.count) SHA-256 item digests", seconds: seconds) { for item in items { _ = SHA256.hash(data: item.taggedBytes) } }
        _ = await measure("Sig_structure of issuerAuth", seconds: seconds) { _ = try? response.documents[0].issuerSigned.issuerAuth.signatureStructure() }
    }
}
