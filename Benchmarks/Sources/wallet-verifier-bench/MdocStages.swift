import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import WalletCBOR
import WalletCOSE
import WalletVerifierTestSupport
import X509

/// Costs of the stages of one mdoc verification, to see where time goes (`wallet-verifier-bench mdoc-stages`).
enum MdocStages {
    /// `MDOC_STAGE=text` measures only the stages whose label contains `text` (for profiling one stage).
    static let only = ProcessInfo.processInfo.environment["MDOC_STAGE"]

    static func measure(_ label: String, seconds: Double, _ body: () async throws -> Void) async rethrows -> Double {
        if let only, !label.contains(only) { return 0 }
        return try await wallet_verifier_bench.measure(label, seconds: seconds, body)
    }

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
        _ = await measure("Sig_structure of issuerAuth", seconds: seconds) {
            _ = try? response.documents[0].issuerSigned.issuerAuth.signatureStructure()
        }
        let document = response.documents[0]
        let itemNodes = items.map(\.node)
        _ = await measure("\(items.count) IssuerSignedItemBytes decodes", seconds: seconds) {
            for node in itemNodes { _ = try? EmbeddedCBOR<IssuerSignedItem>(cbor: node) }
        }
        let innerBytes = items.map(\.innerBytes)
        _ = await measure("\(items.count) raw CBOR decodes of IssuerSignedItems", seconds: seconds) {
            for inner in innerBytes { _ = try? CBORDecoder.decode(inner) }
        }
        let innerNodes = try items.map { try $0.innerNode }
        _ = await measure("\(items.count) IssuerSignedItem(cbor:)", seconds: seconds) {
            for inner in innerNodes { _ = try? IssuerSignedItem(cbor: inner) }
        }
        let issuerAuthNode = document.issuerSigned.issuerAuth.node
        _ = await measure("COSESign1(cbor:) of issuerAuth", seconds: seconds) { _ = try? COSESign1(cbor: issuerAuthNode) }
        let deviceSignedNode = try document.node.mapValue!["deviceSigned"]!
        _ = await measure("DeviceSigned(cbor:)", seconds: seconds) { _ = try? DeviceSigned(cbor: deviceSignedNode) }
        let msoOuter = try CBORDecoder.decode(payload)
        let msoInner = try EmbeddedCBOR<CBORNode>(cbor: msoOuter).value
        _ = await measure("raw CBOR decode of the MSO", seconds: seconds) { _ = try? CBORDecoder.decode(msoInner.encodedBytes) }
        _ = await measure("MobileSecurityObject(cbor:)", seconds: seconds) { _ = try? MobileSecurityObject(cbor: msoInner) }
        let deviceKeyNode = try MobileSecurityObject(cbor: msoInner).deviceKeyNode
        _ = await measure("COSEPublicKey(coseKey:) of the device key", seconds: seconds) { _ = try? COSEPublicKey(coseKey: deviceKeyNode) }
        let values = items.map(\.value.elementValue)
        _ = await measure("\(items.count) ElementValue conversions", seconds: seconds) { for value in values { _ = ElementValue(value) } }
    }
}
