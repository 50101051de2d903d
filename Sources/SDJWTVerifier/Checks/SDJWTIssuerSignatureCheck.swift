import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletEncoding
import WalletJSON
import X509

/// `sdjwt.issuer.signature`: the issuer-signed JWT's signature verifies, over its signing input as
/// received, with the key of the first `x5c` certificate (at most ``maximumChain`` certificates, each
/// standard base64 DER).
struct SDJWTIssuerSignatureCheck: VerificationCheck {
    var id: CheckID { .sdjwtIssuerSignature }
    var prerequisites: [CheckID] { [.sdjwtStructure, .sdjwtIssuerHeader] }
    /// The most `x5c` certificates read.
    static let maximumChain = 5

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let jwt = state.presentation?.issuerJWT else { return .notEvaluated(because: .sdjwtStructure) }
        guard let list = jwt.header["x5c"]?.array, !list.isEmpty else {
            return .failed(.missingCertificateChain, "The issuer-signed JWT's header has no x5c: its signer cannot be identified.")
        }
        guard list.count <= Self.maximumChain else {
            return .failed(.tooLarge, "x5c holds \(list.count) certificates; at most \(Self.maximumChain) are read.")
        }
        var certificates: [Certificate] = []
        var ders: [[UInt8]] = []
        for (index, entry) in list.enumerated() {
            guard let text = entry.string, let der = Base64.decodeStrict(text), let certificate = try? Certificate(derEncoded: der) else {
                return .failed(.invalidCertificate, "x5c[\(index)] is not a base64 DER certificate.")
            }
            certificates.append(certificate)
            ders.append(der)
        }
        guard let key = SDJWTSignatureKey(certificateKey: certificates[0].publicKey) else {
            return .failed(.unsupportedKey, "The x5c leaf's key is not an EC P-256, P-384 or P-521 key.")
        }
        guard try key.verify(jwt) else {
            return .failed(
                .signatureInvalid, "The issuer's \(key.algorithm) signature does not verify with the x5c leaf's key (\(certificates[0].subject)).")
        }
        state.certificates = certificates
        state.certificateDER = ders
        let signer = "\(certificates[0].subject)"
        return .passed("The issuer's \(key.algorithm) signature verifies with the x5c leaf \(signer).", details: ["signer": signer])
    }
}
