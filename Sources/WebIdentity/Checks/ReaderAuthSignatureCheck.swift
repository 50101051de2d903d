import Crypto
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCOSE
import X509

/// `reader.auth.signature`: the COSE_Sign1 verifies with its x5chain leaf's key (P-256 or P-384)
/// over ReaderAuthentication(All)Bytes; an attached payload must be those bytes.
struct ReaderAuthSignatureCheck: VerificationCheck {
    var id: CheckID { .readerAuthSignature }
    var prerequisites: [CheckID] { [.readerRequestStructure] }

    func evaluate(_ state: inout ReaderSignatureState, context: VerificationContext) async throws -> CheckOutcome {
        let signature = state.signature, signed = state.signed, structure = state.structure
        let ders: [ArraySlice<UInt8>]
        do { ders = try signature.headers.x5chainBytes() } catch {
            return .failed(.missingCertificateChain, "The reader signature carries no usable x5chain: \(error.message).")
        }
        guard ders.count <= ReaderAuthVerifier.maxChainLength else {
            return .failed(
                .chainTooLong,
                "The x5chain holds \(ders.count) certificates; at most \(ReaderAuthVerifier.maxChainLength) are read (a reader certificate and its intermediates)."
            )
        }
        var chain: [Certificate] = []
        for (position, der) in ders.enumerated() {
            guard let certificate = try? Certificate(derEncoded: Array(der)) else {
                return .failed(.invalidCertificate, "Certificate \(position) of the x5chain does not parse as X.509.")
            }
            chain.append(certificate)
        }
        state.chain = chain
        let key: COSEPublicKey
        if let k = P256.Signing.PublicKey(chain[0].publicKey) {
            key = .p256(k)
        } else if let k = P384.Signing.PublicKey(chain[0].publicKey) {
            key = .p384(k)
        } else {
            return .failed(.unsupportedReaderKey, "The reader certificate's key is neither P-256 nor P-384.")
        }
        do {
            let algorithm = try signature.algorithm
            guard signature.payload == nil || signature.payload!.elementsEqual(signed) else {
                return .failed(
                    .readerSignatureInvalid,
                    "The reader signed an attached payload that is not the \(structure) of this request: the transcript (origin or encryption info) or the items request differ."
                )
            }
            guard try signature.isValidSignature(key: key, detachedPayload: signature.payload == nil ? signed : nil) else {
                let shape =
                    structure == "ReaderAuthenticationAll"
                    ? " (the four-element [\"ReaderAuthenticationAll\", SessionTranscript, [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])"
                    : ""
                return .failed(
                    .readerSignatureInvalid,
                    "The reader signature (\(algorithm)) does not verify over \(structure)Bytes\(shape): the items request, the origin or the encryption info differ from what the reader signed."
                )
            }
            let reader = "\(chain[0].subject)"
            return .passed(
                "The reader signature (\(algorithm)) by \(reader) verifies over \(structure)Bytes as received.", details: ["reader": reader])
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The reader signature cannot be verified: \(error.message).")
        }
    }
}
