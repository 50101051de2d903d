import Mdoc
import VerificationCore
import WalletCOSE
import X509

/// `mdoc.document.structure`: the document decodes (docType, IssuerSigned with tag-24 items and
/// issuerAuth, DeviceSigned), and its x5chain certificates parse.
struct DocumentStructureCheck: VerificationCheck {
    var id: CheckID { .mdocDocumentStructure }
    /// The most x5chain certificates read.
    static let maxCertificates = 4

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        let document: Document
        switch state.decoded {
        case .failure(let error):
            return .failed(ReasonCode(error.code.rawValue), "The document could not be decoded: \(error.message).")
        case .success(let decoded):
            document = decoded
        }
        state.document = document
        do {
            let ders = try document.issuerSigned.issuerAuth.headers.x5chainBytes()
            // The document signer, and perhaps a certificate or two an issuer adds: more is not read
            // (each one costs a parse, and the chain is built from the trust store alone).
            guard ders.count <= Self.maxCertificates else {
                state.certificates = .failure(
                    MdocCheckFailure(
                        "chainTooLong",
                        "x5chain holds \(ders.count) certificates; at most \(Self.maxCertificates) are read (the document signer is issued directly by the IACA, ISO 18013-5 Annex B)."
                    ))
                return Self.passed(document)
            }
            var certificates: [ValidatedChainCache.ParsedCertificate] = []
            certificates.reserveCapacity(ders.count)
            var failure: MdocCheckFailure?
            for (position, der) in ders.enumerated() where failure == nil {
                if let parsed = state.chainCache.certificate(der: der) {
                    certificates.append(parsed)
                    if position == 0 { state.signer = parsed }
                } else {
                    failure = MdocCheckFailure("invalidCertificate", "Certificate \(position) of x5chain is not a valid X.509 certificate.")
                }
            }
            state.certificates = failure.map { .failure($0) } ?? .success(certificates)
        } catch {
            state.certificates = .failure(
                MdocCheckFailure(
                    ReasonCode(error.code.rawValue),
                    "issuerAuth carries no document signer certificate (x5chain, label 33): \(error.message)."))
        }

        return Self.passed(document)
    }

    /// The pass, its message written from the counts and the docType only (not from the document).
    static func passed(_ document: Document) -> CheckOutcome {
        let elements = document.issuerSigned.elements
        let (docType, itemCount, nameSpaces) = (document.docType, elements.elements.count, elements.nameSpaces.count)
        return .passed {
            ("The document \(docType) decodes: \(itemCount) issuer-signed elements in \(nameSpaces) namespaces.", ["docType": docType])
        }
    }
}
