import Foundation
import FuzzSupport
import MdocVerifier
import VerificationCore
import X509

// The `vical` target: arbitrary bytes as a VICAL (COSE_Sign1 over the VICAL map), decoded and loaded
// by VICALLoader with the real AAMVA VICAL's root as anchor, on its issue day.
// Oracle: a trusted VICAL yields only the real VICAL's roots, each for the docTypes the real VICAL
// gives it.

func aamva(_ name: String) -> [UInt8] { testVector("mdoc/aamva-vical-isomdl/" + name) }
let loader = VICALLoader(anchors: try! IACATrustStore.certificates(in: aamva("aamva_dts_root_ca.pem"), name: "aamva_dts_root_ca.pem"))
let time = fixedTime("2025-11-18T19:00:00Z")
let seedRoots: [Certificate: Set<String>] = seedResult {
    let result = await loader.load(bytes: aamva("aamva-vical-2025-11-18.cbor"), at: time)
    precondition(result.trusted, "the seed does not verify")
    return Dictionary(result.roots.map { ($0.certificate, $0.docTypes) }, uniquingKeysWith: { $0.union($1) })
}

func run(_ bytes: [UInt8]) async {
    _ = try? VICAL(bytes: bytes)
    let result = await loader.load(bytes: bytes, at: time)
    guard result.trusted else { return }
    for root in result.roots {
        guard let docTypes = seedRoots[root.certificate], root.docTypes.isSubset(of: docTypes) else {
            fatalError("a trusted VICAL yields a root or docTypes the real VICAL does not: \(root.certificate.subject)")
        }
    }
    AcceptedInputs.record(bytes)
}

@_cdecl("FuzzVICAL_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, prepare: { _ = seedRoots.count }, .asynchronous(run))
}
