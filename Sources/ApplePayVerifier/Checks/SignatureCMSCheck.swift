import SwiftASN1
import VerificationCore
import WalletEncoding
import X509

/// `applepay.signature.cms`: `signature` is a detached CMS SignedData with exactly one signer whose
/// certificate is in it.
struct SignatureCMSCheck: VerificationCheck {
    let id = CheckID.applePaySignatureCMS
    let prerequisites: [CheckID] = [.applePayTokenStructure]
    let certificates: CertificateParseCache
    /// The most certificates read from a SignedData.
    static let maxCertificates = 4

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .applePayTokenStructure) }
        let signedData = try CMSSignedData(berEncoded: token.signature)
        state.signedData = signedData
        guard !signedData.hasEncapsulatedContent else {
            return .failed(
                .notDetached, "The SignedData carries content; Apple Pay signatures are detached (the signed content is the token's fields)")
        }
        guard signedData.signers.count == 1, let signer = signedData.signers.first else {
            return .failed(.unexpectedSignerCount, "The SignedData has \(signedData.signers.count) signers; exactly one is expected")
        }
        state.signer = signer
        guard !signedData.certificates.isEmpty else {
            return .failed(.signerCertificateNotFound, "The SignedData holds no certificates; Apple includes the leaf and the intermediate")
        }
        // Apple includes two certificates; more is not an Apple Pay signature, and every certificate
        // read costs a parse (and could feed path building).
        guard signedData.certificates.count <= Self.maxCertificates else {
            return .failed(
                .malformedCMS,
                "The SignedData holds \(signedData.certificates.count) certificates; Apple includes the leaf and the intermediate, and at most \(Self.maxCertificates) are read"
            )
        }
        var parsed: [ParsedCertificate] = []
        for (index, der) in signedData.certificates.enumerated() {
            do {
                parsed.append(try certificates.certificate(der: der))
            } catch {
                return .failed(.malformedCMS, "Certificate #\(index + 1) of the SignedData is not a readable X.509 certificate")
            }
        }
        guard let leafIndex = parsed.firstIndex(where: { $0.matches(signer.signerIdentifier) }) else {
            return .failed(
                .signerCertificateNotFound,
                "No certificate in the SignedData matches the signer identifier (\(Self.describe(signer.signerIdentifier)))")
        }
        let leaf = parsed[leafIndex]
        var others = parsed
        others.remove(at: leafIndex)
        state.leaf = leaf
        state.otherCertificates = others
        let issuers = others.filter { $0.issued(leaf) }
        state.intermediate = issuers.first(where: \.hasIntermediateMarker) ?? issuers.first

        let certificates = parsed.count
        return .passed(
            certificates == 2 ? leaf.texts.twoCertificatesMessage : Self.passMessage(certificates: certificates, leafName: leaf.displayName),
            details: leaf.texts.leafDetails
        )
    }

    static func passMessage(certificates: Int, leafName: String) -> String {
        "Detached SignedData with one signer, \(certificates) certificates; signer \"\(leafName)\""
    }

    static func describe(_ identifier: CMSSignerIdentifier) -> String {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serial):
            let name = (try? DistinguishedName.parse(der: issuer)).map { String(describing: $0) } ?? "(unreadable name)"
            return "issuer \(name), serial \(Hex.encode(serial, uppercase: true))"
        case .subjectKeyIdentifier(let ski):
            return "subject key identifier \(Hex.encode(ski))"
        }
    }
}
