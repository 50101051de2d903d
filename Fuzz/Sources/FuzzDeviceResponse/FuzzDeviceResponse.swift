import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

// The `device-response` target: arbitrary bytes through the CBOR decoder, diagnostic notation,
// element rendering, the in-place and generic DeviceResponse readers, and a whole mdoc verification
// of ISO 18013-5 Annex D (its document signer pinned, its reader key, at its time). Aborts on an
// accepted verdict whose docType differs from the seed's or that discloses an element the seed does
// not, or with another value. Fewer elements are allowed: issuer-signed items are disclosed
// selectively, and nothing signs which of them a response carries (docs/fuzzing.md).

let annexD = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../TestVectors/mdoc/iso18013-5-annex-d").standardized
func vector(_ name: String) -> [UInt8] { [UInt8]((try? Data(contentsOf: annexD.appendingPathComponent(name))) ?? Data()) }
let transcript = try! SessionTranscript(bytes: vector("session_transcript_bytes.cbor"))
let readerKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: Hex.decode(String(decoding: vector("ereader_key_private_d.hex"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))!)
let verifier = MdocVerifier(trustStore: try! IACATrustStore(certificates: IACATrustStore.certificates(in: vector("document_signer.pem"), name: "ds")))
let time = Date(timeIntervalSince1970: 1_609_459_200) // 2021-01-01
/// namespace/identifier → JSON value, from verifying the seed once.
let seedElements: [String: String] = {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var elements: [String: String] = [:]
    Task {
        let result = await verifier.verify(deviceResponse: vector("device_response.cbor"), transcript: transcript, readerKey: readerKey, at: time)
        precondition(result.report.verdict == .accepted, "the seed does not verify")
        for space in result.documents[0].issuerSigned { for element in space.elements { elements["\(space.name)/\(element.identifier)"] = element.value.json } }
        done.signal()
    }
    done.wait()
    return elements
}()

func run(_ bytes: [UInt8]) async {
    if let node = try? CBORDecoder.decode(bytes) {
        _ = CBORDiagnostic(style: .compact).format(node)
        _ = ElementValue(node).json
        _ = try? node.checkEmbeddedNesting(depth: 1)
    }
    let result = await verifier.verify(deviceResponse: bytes, transcript: transcript, readerKey: readerKey, at: time)
    for document in result.documents {
        for space in document.issuerSigned { for element in space.elements { _ = element.value.json } }
    }
    if result.report.verdict == .accepted {
        guard result.documents.count == 1, let document = result.documents.first, document.docType == "org.iso.18013.5.1.mDL" else {
            fatalError("accepted with another docType than the seed's: \(result.documents.map(\.docType))")
        }
        for space in document.issuerSigned {
            for element in space.elements where seedElements["\(space.name)/\(element.identifier)"] != element.value.json {
                fatalError("accepted with an element the seed does not disclose, or another value: \(space.name)/\(element.identifier)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let done = DispatchSemaphore(value: 0)
    Task { await run(bytes); done.signal() }
    done.wait()
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's driver runs from it.
@_cdecl("FuzzDeviceResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzz(data, size) }
}
