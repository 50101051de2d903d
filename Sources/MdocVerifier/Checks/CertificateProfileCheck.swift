import SwiftASN1
import VerificationCore
import X509

/// `mdoc.issuer.certificateProfile` (ISO 18013-5 Annex B, Table B.3 and B.1): the document signer
/// has key usage digitalSignature and extended key usage 1.0.18013.5.1.2, is not a CA, and is
/// issued directly by the IACA (its issuer name equals the IACA's subject); the IACA is a CA with
/// keyCertSign. Always required.
struct CertificateProfileCheck: VerificationCheck {
    static let documentSignerEKU: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 2]

    var id: CheckID { .mdocIssuerCertificateProfile }
    var prerequisites: [CheckID] { MdocPrerequisites.issuerChain }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let entry = state.chain, let signer = entry.subjects.first, let iaca = entry.subjects.last else {
            return .failed("profileViolation", "No validated chain of a document signer and an IACA.")
        }
        // The violations were computed once, when the chain was validated.
        let violations = entry.profileViolations
        if entry.chain.count == 1 {
            // A pinned document signer: only its own rules can be checked.
            guard violations.isEmpty else {
                return .failed("profileViolation", "The pinned document signer does not follow the ISO 18013-5 Annex B profile: \(violations.joined(separator: "; ")).",
                               details: ["signer": signer])
            }
            return .passed("The pinned document signer follows the document-signer rules of ISO 18013-5 Annex B; no IACA was involved, so its rules were not checked.",
                           details: ["signer": signer, "pinned": "true"])
        }
        guard violations.isEmpty else {
            return .failed("profileViolation", "The certificates do not follow the ISO 18013-5 Annex B profile: \(violations.joined(separator: "; ")).",
                           details: ["signer": signer, "iaca": iaca])
        }
        return .passed("The document signer and IACA follow the ISO 18013-5 Annex B profile.")
    }

    static func violations(documentSigner ds: Certificate, iaca: Certificate) -> [String] {
        var problems = documentSignerViolations(ds)
        if ds.issuer != iaca.subject {
            problems.append("the document signer's issuer (\(ds.issuer)) is not the IACA's subject (\(iaca.subject)); a document signer must be issued directly by the IACA")
        }
        do {
            switch try iaca.extensions.basicConstraints {
            case .isCertificateAuthority?: break
            default: problems.append("the IACA is not marked as a CA")
            }
        } catch { problems.append("the IACA's basic constraints are malformed") }
        do {
            if let usage = try iaca.extensions.keyUsage {
                if !usage.keyCertSign { problems.append("the IACA's key usage lacks keyCertSign") }
            } else {
                problems.append("the IACA has no key usage extension")
            }
        } catch { problems.append("the IACA's key usage extension is malformed") }
        return problems
    }

    static func documentSignerViolations(_ ds: Certificate) -> [String] {
        var problems: [String] = []
        do {
            if let usage = try ds.extensions.keyUsage {
                if !usage.digitalSignature { problems.append("the document signer's key usage lacks digitalSignature") }
                if usage.keyCertSign { problems.append("the document signer's key usage allows keyCertSign") }
            } else {
                problems.append("the document signer has no key usage extension")
            }
        } catch { problems.append("the document signer's key usage extension is malformed") }
        do {
            if let eku = try ds.extensions.extendedKeyUsage {
                if !eku.contains(ExtendedKeyUsage.Usage(oid: documentSignerEKU)) {
                    problems.append("the document signer's extended key usage lacks 1.0.18013.5.1.2 (mdlDS)")
                }
            } else {
                problems.append("the document signer has no extended key usage (1.0.18013.5.1.2)")
            }
        } catch { problems.append("the document signer's extended key usage extension is malformed") }
        do {
            if case .isCertificateAuthority = try ds.extensions.basicConstraints {
                problems.append("the document signer is marked as a CA")
            }
        } catch { problems.append("the document signer's basic constraints are malformed") }
        return problems
    }
}