import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletVerifierTestSupport
import X509

/// Costs of the stages of one mdoc verification, to see where time goes (`wallet-verifier-bench mdoc-stages`):
/// the full verification first (the mdoc benchmark's), then each stage with its share of it, then the
/// share of the crypto floor (the two ECDSA verifications) and what no stage accounts for. Stages
/// marked ▸ run once in every verification and do not overlap (see ``StageTable``); when a change
/// takes one off the verification's path (a cache, a decode in place), unmark it here.
enum MdocStages {
    static func run(seconds: Double) async throws {
        print("mdoc stages (same response as the mdoc benchmark; MDOC_STAGE=a,b measures only the labels containing a or b)")
        var table = StageTable(filter: "MDOC_STAGE", seconds: seconds)
        let transcript = MdocBenchmark.transcript
        let scenario = try MdocBenchmark.scenario(transcript: transcript)
        let bytes = scenario.bytes
        let der = scenario.pki.dsDER
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [scenario.pki.iaca]), policy: .iso18013Strict)
        let context = VerificationContext.at(scenario.fixture.validFrom.addingTimeInterval(3600))
        let first = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: context)
        guard first.report.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }
        await table.full("full verification (MdocVerifier.verify, as in mdoc)") {
            _ = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: context)
        }
        guard
            let signatures = try SignatureFloor(
                response: bytes, transcript: transcript, issuerKey: scenario.pki.dsKey.publicKey, deviceKey: scenario.deviceKey.publicKey)
        else { return }
        await table.floor("crypto floor: 2 × ECDSA P-256 verify", part: true) { signatures.verify() }

        await table.stage("CBOR decode of the DeviceResponse") { _ = try? CBORDecoder.decode(bytes) }
        await table.stage("DeviceResponse model decode (incl. items)", part: true) { _ = try? DeviceResponse(cborBytes: bytes) }
        let response = try DeviceResponse(cborBytes: bytes)
        let document = response.documents[0]
        let payload = document.issuerSigned.issuerAuth.payload!
        await table.stage("MSO decode", part: true) { _ = try? EmbeddedCBOR<MobileSecurityObject>(cbor: try CBORDecoder.decode(payload)) }
        // What the reading alone costs: one pass collecting ranges, no model (see OnePassBound).
        if let bound = OnePassBound.read(bytes), bound.items.count == document.issuerSigned.nameSpaces.flatMap(\.items).count,
            bound.digests.count >= bound.items.count
        {
            await table.stage("lower bound: one pass over response and MSO, ranges only") { _ = OnePassBound.read(bytes) }
        } else {
            print("  the one-pass bound did not read this response")
        }
        // Parsed once per distinct DER (the chain cache), so not a part.
        await table.stage("Certificate(derEncoded:) of the DS (cached by DER)") { _ = try? Certificate(derEncoded: der) }
        let certificate = try Certificate(derEncoded: der)
        await table.stage("subject description (cached with the DS)") { _ = certificate.subject.description }
        let items = document.issuerSigned.nameSpaces.flatMap(\.items)
        // As mdoc.valueDigests hashes them: each item's bytes through one pointer to the received bytes.
        let elements = document.issuerSigned.elements
        await table.stage("\(items.count) SHA-256 item digests", part: true) {
            elements.bytes.withUnsafeBytes { received in
                for element in elements.elements {
                    let start = element.taggedRange.lowerBound - elements.bytes.startIndex
                    _ = SHA256.hash(data: UnsafeRawBufferPointer(rebasing: received[start..<(start + element.taggedRange.count)]))
                }
            }
        }
        // The same bytes through one hasher: the block work without the per-call cost of
        // swift-crypto's SHA-256 (a context allocated, copied and zeroed per digest).
        let itemBytes = items.map { Array($0.taggedBytes) }
        await table.stage("the same item bytes through one SHA-256 (block work only)") {
            var hasher = SHA256()
            for bytes in itemBytes { hasher.update(data: bytes) }
            _ = hasher.finalize()
        }
        await table.stage("Sig_structure of issuerAuth", part: true) { _ = try? document.issuerSigned.issuerAuth.signatureStructure() }
        let deviceSigned = document.deviceSigned!
        await table.stage("DeviceAuthentication + its Sig_structure", part: true) {
            guard case .signature(let sign1) = deviceSigned.deviceAuth else { return }
            _ = try? sign1.signatureStructure(
                detachedPayload: DeviceAuthentication.bytes(
                    transcript: transcript, docType: document.docType, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes))
        }
        let itemNodes = items.map(\.node)
        await table.stage("\(items.count) IssuerSignedItemBytes decodes") {
            for node in itemNodes { _ = try? EmbeddedCBOR<IssuerSignedItem>(cbor: node) }
        }
        let innerBytes = items.map(\.innerBytes)
        await table.stage("\(items.count) raw CBOR decodes of IssuerSignedItems") { for inner in innerBytes { _ = try? CBORDecoder.decode(inner) } }
        let innerNodes = try items.map { try $0.innerNode }
        await table.stage("\(items.count) IssuerSignedItem(cbor:)") { for inner in innerNodes { _ = try? IssuerSignedItem(cbor: inner) } }
        let issuerAuthNode = document.issuerSigned.issuerAuth.node
        await table.stage("COSESign1(cbor:) of issuerAuth") { _ = try? COSESign1(cbor: issuerAuthNode) }
        let deviceSignedNode = try document.node.mapValue!["deviceSigned"]!
        await table.stage("DeviceSigned(cbor:)") { _ = try? DeviceSigned(cbor: deviceSignedNode) }
        let msoOuter = try CBORDecoder.decode(payload)
        let msoInner = try EmbeddedCBOR<CBORNode>(cbor: msoOuter).value
        await table.stage("raw CBOR decode of the MSO") { _ = try? CBORDecoder.decode(msoInner.encodedBytes) }
        await table.stage("MobileSecurityObject(cbor:)") { _ = try? MobileSecurityObject(cbor: msoInner) }
        let deviceKeyNode = try MobileSecurityObject(cbor: msoInner).deviceKeyNode
        await table.stage("COSEPublicKey(coseKey:) of the device key (in MSO decode)") { _ = try? COSEPublicKey(coseKey: deviceKeyNode) }
        // What the floor prepares ahead and a verification cannot: the two signatures as swift-crypto
        // values (raw r‖s through `Data` into an ECDSA_SIG).
        var rawSignatures = [Array(document.issuerSigned.issuerAuth.signature)]
        if case .signature(let sign1) = deviceSigned.deviceAuth { rawSignatures.append(Array(sign1.signature)) }
        await table.stage("2 × P256.Signing.ECDSASignature(rawRepresentation:)") {
            for raw in rawSignatures { _ = try? P256.Signing.ECDSASignature(rawRepresentation: raw) }
        }
        let values = items.map(\.value.elementValue)
        // Not a part: a response read in place has its values read with its items (in the model decode).
        await table.stage("\(items.count) ElementValue conversions from nodes (generic decode)") {
            for value in values { _ = ElementValue(value) }
        }
        // The check machinery alone: 13 checks that pass at once, each with a message and one detail,
        // through a runner, and the report (what every check of a verification costs besides its work).
        await table.stage("check runner: 13 checks passing at once + report") {
            await TrivialCheck.runAll()
        }
        await table.stage("check runner: 13 checks passing at once, no details + report") {
            await TrivialCheck.runAll(bare: true)
        }
        table.summary()
    }
}
