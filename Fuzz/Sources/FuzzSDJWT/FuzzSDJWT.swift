import Foundation
import FuzzSupport
import MdocVerifier
import SDJWTVerifier
import VerificationCore
import WalletJSON

// The `sdjwt` target: arbitrary bytes as an SD-JWT presentation → `SDJWTPresentation` (strict
// base64url and JSON, limits), the disclosure processor, the issuer signature with the IETF
// specification's example issuer key, and the whole SD-JWT VC verifier with an empty trust store.
// Aborts when the verifier accepts (no root is trusted, so nothing may be), or when a presentation
// whose signature verifies with the example key rebuilds to a claim the specification's issuance
// does not hold with that value (a disclosure processor that can be made to invent claims).

let issuerKey = try! SDJWTSignatureKey(jwk: [
    "kty": .string("EC"), "crv": .string("P-256"), "x": .string("b28d4MwZMjw8-00CG4xfnn9SLMVMM19SlqZpVb_uNtQ"),
    "y": .string("Xv5zWwuoaTgdS6hV43yI6gBwTnjukmFQQnJ_kCxzqk8"),
])
let seed = String(decoding: testVector("sdjwt/ietf-sd-jwt-examples/example1-issuance.txt"), as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)
let seedClaims: StrictJSON.Object = {
    let presentation = try! SDJWTPresentation(seed)
    return try! SDJWTDisclosureProcessor(payload: presentation.issuerJWT.payload, disclosures: presentation.disclosures).claims
}()
let verifier = SDJWTVCVerifier(trustStore: IACATrustStore())
let time = Date(timeIntervalSince1970: 1_688_160_483)

/// Whether `value` is `seedValue` with some array elements left out (an undisclosed element drops out).
func isPart(_ value: StrictJSON.Value, of seedValue: StrictJSON.Value) -> Bool {
    switch (value, seedValue) {
    case (.object(let object), .object(let seedObject)):
        return object.members.allSatisfy { member in seedObject[member.name].map { isPart(member.value, of: $0) } ?? false }
    case (.array(let array), .array(let seedArray)):
        var remaining = seedArray[...]
        for element in array {
            guard let index = remaining.firstIndex(where: { isPart(element, of: $0) }) else { return false }
            remaining = remaining[(index + 1)...]
        }
        return true
    default:
        return value == seedValue
    }
}

func run(_ bytes: [UInt8]) async {
    let text = String(decoding: bytes, as: UTF8.self)
    let result = await verifier.verify(text, expectations: SDJWTExpectations(), context: VerificationContext(time: time))
    if result.report.verdict == .accepted { fatalError("accepted with no trusted root") }
    guard let presentation = try? SDJWTPresentation(text), (try? issuerKey.verify(presentation.issuerJWT)) == true else { return }
    guard let claims = try? SDJWTDisclosureProcessor(payload: presentation.issuerJWT.payload, disclosures: presentation.disclosures).claims
    else { return }
    guard isPart(.object(claims), of: .object(seedClaims)) else { fatalError("a claim the issuer did not sign") }
    AcceptedInputs.record(bytes)
}

@_cdecl("FuzzSDJWT_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, .asynchronous(run))
}
