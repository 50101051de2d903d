import Crypto
import SwiftASN1
import VerificationCore
import WalletEncoding

/// `applepay.signature.messageDigest`: the message-digest signed attribute is SHA-256 of
/// ephemeralPublicKey or wrappedKey ‖ data ‖ transactionId ‖ applicationData, all decoded as
/// received. This is what ties the signature to the token's fields.
struct MessageDigestCheck: VerificationCheck {
    let id = CheckID.applePaySignatureMessageDigest
    let prerequisites: [CheckID] = [.applePaySignatureCMS]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token, let signer = state.signer else { return .notEvaluated(because: .applePaySignatureCMS) }
        guard signer.digestAlgorithm.algorithm == CMSOID.sha256, signer.digestAlgorithm.parametersAbsentOrNull else {
            return .failed(
                .unsupportedDigestAlgorithm, "The digest algorithm is \(signer.digestAlgorithm); Apple Pay uses sha256 (parameters absent or NULL)")
        }
        let element: ArraySlice<UInt8>
        switch SignedAttributes.single(CMSOID.messageDigest, name: "message-digest", in: signer) {
        case .problem(let outcome): return outcome
        case .value(let value): element = value
        }
        guard let digest = BERScanner.octetString(element) else {
            return .failed(.malformedAttribute, "The message-digest attribute is not an OCTET STRING")
        }
        let computed = token.signedContentDigest
        let covered = Self.covered(token)
        guard digest.elementsEqual(computed) else {
            return .failed(
                .digestMismatch,
                "The signed message digest is not SHA-256 of \(covered): a signed field was altered or the fields were not decoded as sent",
                details: [
                    "signedDigest": Hex.encode(digest),
                    "computedDigest": Hex.encode(computed),
                ])
        }
        return .passed(Self.passMessages[Self.variant(token)])
    }

    /// The fields the digest covers, for each version, without and with applicationData (written once).
    static let coveredTexts: [String] = [
        "ephemeralPublicKey ‖ data ‖ transactionId", "ephemeralPublicKey ‖ data ‖ transactionId ‖ applicationData",
        "wrappedKey ‖ data ‖ transactionId", "wrappedKey ‖ data ‖ transactionId ‖ applicationData",
    ]
    static let passMessages = coveredTexts.map { "Message digest is SHA-256 of \($0)" }

    static func variant(_ token: ApplePayToken) -> Int {
        (token.version == .ecV1 ? 0 : 2) + (token.header.applicationDataBytes != nil ? 1 : 0)
    }

    static func covered(_ token: ApplePayToken) -> String { coveredTexts[variant(token)] }
}
