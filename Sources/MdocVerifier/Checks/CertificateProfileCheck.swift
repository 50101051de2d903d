import Crypto
import FoundationEssentials
import Mdoc
import SwiftASN1
import VerificationCore
import X509

/// `mdoc.issuer.certificateProfile` (ISO 18013-5 Annex B, Table B.3 and B.1): the document signer
/// has key usage digitalSignature and extended key usage 1.0.18013.5.1.2, is not a CA, has a subject
/// commonName, a stateOrProvinceName (when present) equal to the IACA's, and is issued directly by
/// the IACA (its issuer name equals the IACA's subject, its authority key identifier the IACA's
/// subject key identifier); the IACA is a CA with keyCertSign and cRLSign; both are signed with
/// ECDSA (SHA-256/384/512) or EdDSA and mark critical only extensions Annex B defines. The rules
/// Apple's test issuer breaks (validity at most 457 days for the DS and 20 years for the IACA,
/// issuerAltName, the CRL distribution points, key identifiers, the DS's keyUsage and
/// extendedKeyUsage marked critical, the IACA's pathLenConstraint 0 — 1 for a passport root) fail under
/// ``MdocVerificationPolicy/requireFullCertificateProfile`` and are warnings otherwise.
struct CertificateProfileCheck: VerificationCheck {
    static let documentSignerEKU: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 2]

    var id: CheckID { .mdocIssuerCertificateProfile }
    var prerequisites: [CheckID] { MdocPrerequisites.issuerChain }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let entry = state.chain, let signer = entry.subjects.first, let iaca = entry.subjects.last else {
            return .failed(.profileViolation, "No validated chain of a document signer and an IACA.")
        }
        // The violations were computed once, when the chain was validated. The rules Apple's own test
        // issuer does not follow are failures under a policy that requires the whole profile, and
        // warnings (details.profileWarnings) otherwise.
        var extended = entry.profileWarnings
        let passport = state.document?.docType == PhotoIDDocument.docType
        if let pathRule = passport ? entry.pathLengthViolations.passport : entry.pathLengthViolations.document {
            extended.append(pathRule)
        }
        let violations = entry.profileViolations + (state.policy.requireFullCertificateProfile ? extended : [])
        let warned = state.policy.requireFullCertificateProfile ? [] : extended
        var warning: [String: String] { warned.isEmpty ? [:] : ["profileWarnings": warned.joined(separator: "; ")] }
        // The rules reported as warnings also go into the report's warnings.
        func withWarnings(_ outcome: CheckOutcome) -> CheckOutcome {
            guard !warned.isEmpty else { return outcome }
            return outcome.warning(
                .certificateProfileWarning,
                "The issuer's certificates break Annex B rules this policy reports as warnings: \(warned.joined(separator: "; ")).")
        }
        if entry.chain.count == 1 {
            // A pinned document signer: only its own rules can be checked.
            guard violations.isEmpty else {
                return .failed(
                    .profileViolation,
                    "The pinned document signer does not follow the ISO 18013-5 Annex B profile: \(violations.joined(separator: "; ")).",
                    details: ["signer": signer])
            }
            return withWarnings(
                .passed(
                    "The pinned document signer follows the document-signer rules of ISO 18013-5 Annex B; no IACA was involved, so its rules were not checked.",
                    details: ["signer": signer, "pinned": "true"].merging(warning) { a, _ in a }))
        }
        guard violations.isEmpty else {
            return .failed(
                .profileViolation, "The certificates do not follow the ISO 18013-5 Annex B profile: \(violations.joined(separator: "; ")).",
                details: ["signer": signer, "iaca": iaca])
        }
        return withWarnings(
            .passed(
                "The document signer and IACA follow the ISO 18013-5 Annex B profile"
                    + (warned.isEmpty ? "." : ", except for rules this policy reports as warnings."), details: warning))
    }

    static func violations(documentSigner ds: Certificate, iaca: Certificate) -> [String] {
        var problems = documentSignerViolations(ds)
        problems += Self.algorithmAndExtensionViolations(iaca, name: "IACA")
        // The DS's authority key identifier names the IACA's subject key identifier (Table B.3).
        do {
            if let ski = try iaca.extensions.subjectKeyIdentifier, let aki = try ds.extensions.authorityKeyIdentifier?.keyIdentifier,
                !aki.elementsEqual(ski.keyIdentifier)
            {
                problems.append("the document signer's authority key identifier does not equal the IACA's subject key identifier")
            }
        } catch { problems.append("the key identifier extensions are malformed") }
        return problems + Self.issuerViolations(ds: ds, iaca: iaca)
    }

    private static func issuerViolations(ds: Certificate, iaca: Certificate) -> [String] {
        var problems: [String] = []
        if ds.issuer != iaca.subject {
            problems.append(
                "the document signer's issuer (\(ds.issuer)) is not the IACA's subject (\(iaca.subject)); a document signer must be issued directly by the IACA"
            )
        }
        do {
            switch try iaca.extensions.basicConstraints {
            case .isCertificateAuthority?: break
            default: problems.append("the IACA is not marked as a CA")
            }
        } catch { problems.append("the IACA's basic constraints are malformed") }
        // Table B.3: a document signer's stateOrProvinceName, when present, is the IACA's.
        if let state = Self.attribute(.RDNAttributeType.stateOrProvinceName, in: ds.subject) {
            let iacaState = Self.attribute(.RDNAttributeType.stateOrProvinceName, in: iaca.subject)
            if iacaState != state {
                problems.append(
                    "the document signer's stateOrProvinceName differs from the IACA's (\(iacaState == nil ? "which has none" : "Table B.3 requires the same"))"
                )
            }
        }
        do {
            if let usage = try iaca.extensions.keyUsage {
                if !usage.keyCertSign { problems.append("the IACA's key usage lacks keyCertSign") }
                if !usage.cRLSign { problems.append("the IACA's key usage lacks cRLSign") }
            } else {
                problems.append("the IACA has no key usage extension")
            }
        } catch { problems.append("the IACA's key usage extension is malformed") }
        return problems
    }

    static func documentSignerViolations(_ ds: Certificate) -> [String] {
        var problems = algorithmAndExtensionViolations(ds, name: "document signer")
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
        // Table B.3: the subject carries a commonName.
        if attribute(.RDNAttributeType.commonName, in: ds.subject) == nil {
            problems.append("the document signer's subject has no commonName")
        }
        return problems
    }

    /// The first value of an attribute in a name, as text; nil when absent.
    static func attribute(_ type: ASN1ObjectIdentifier, in name: DistinguishedName) -> String? {
        for rdn in name {
            for attribute in rdn where attribute.type == type { return String(describing: attribute.value) }
        }
        return nil
    }

    /// Signature algorithms of ISO/IEC 18013-5 (ECDSA with SHA-256/384/512 on the curves it lists,
    /// and EdDSA), and the extensions Annex B defines: any other extension marked critical is not
    /// understood and breaks the profile.
    static let allowedSignatureAlgorithms: [Certificate.SignatureAlgorithm] = [.ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512, .ed25519]
    static let understoodExtensions: [ASN1ObjectIdentifier] = [
        [2, 5, 29, 14], [2, 5, 29, 15], [2, 5, 29, 17], [2, 5, 29, 18], [2, 5, 29, 19],
        [2, 5, 29, 30], [2, 5, 29, 31], [2, 5, 29, 32], [2, 5, 29, 35], [2, 5, 29, 37],
    ]

    static func algorithmAndExtensionViolations(_ certificate: Certificate, name: String) -> [String] {
        var problems: [String] = []
        if !allowedSignatureAlgorithms.contains(certificate.signatureAlgorithm) {
            problems.append("the \(name) is signed with \(certificate.signatureAlgorithm), not ECDSA with SHA-256/384/512 or EdDSA")
        }
        if let problem = keyViolation(certificate.publicKey) {
            problems.append("the \(name)'s public key is \(problem); Annex B allows ECDSA keys on P-256, P-384 or P-521 and Ed25519 keys")
        }
        for ext in certificate.extensions where ext.critical && !understoodExtensions.contains(ext.oid) {
            problems.append("the \(name) has a critical extension \(ext.oid) that Annex B does not define")
        }
        return problems
    }

    /// The curve of a certificate's key, when it is not one ISO/IEC 18013-5 lists for issuer
    /// certificates (of those this library can read: P-256, P-384, P-521, Ed25519; a brainpool or
    /// Ed448 key does not parse as a certificate here, so it fails the chain instead).
    static func keyViolation(_ key: Certificate.PublicKey) -> String? {
        if P256.Signing.PublicKey(key) != nil || P384.Signing.PublicKey(key) != nil || P521.Signing.PublicKey(key) != nil
            || Curve25519.Signing.PublicKey(key) != nil
        {
            return nil
        }
        // The only other keys a certificate can hold here are RSA keys ("RSA2048.PublicKey").
        return "\(key)".hasPrefix("RSA") ? "an RSA key (\(key))" : "\(key)"
    }

    /// Table B.1: the IACA's basicConstraints pathLenConstraint is 0 (it issues document signers
    /// only). For a passport (`passport` true) one intermediate is allowed: Apple's passport
    /// revocation lists are signed by "the leaf and intermediate CA certificate … checked against the
    /// root certificate" (seed 002), so the passport root must allow one CA below it; an absent
    /// (unbounded) or larger pathLenConstraint still breaks the profile. Nil when the rule holds.
    static func pathLengthViolation(iaca: Certificate, passport: Bool) -> String? {
        guard case .isCertificateAuthority(let length)? = try? iaca.extensions.basicConstraints else { return nil }
        let allowed = passport ? 1 : 0
        if let length, length <= allowed { return nil }
        return "the IACA's basicConstraints pathLenConstraint is \(length.map(String.init) ?? "absent"); Table B.1 requires 0"
            + (passport ? " (1 for a passport root, whose revocation lists are signed under an intermediate CA)" : "")
    }

    /// Annex B rules that Apple's own test issuer does not follow (its certificates are valid for a
    /// century and carry no issuerAltName or CRL distribution point): failures under a policy that
    /// requires the whole profile (ISO strict, passports), warnings under Apple's in-app policy.
    /// `iaca` is nil for a pinned document signer.
    static func extendedViolations(documentSigner ds: Certificate, iaca: Certificate?) -> [String] {
        var problems: [String] = []
        func has(_ certificate: Certificate, _ oid: ASN1ObjectIdentifier) -> Bool { certificate.extensions.contains { $0.oid == oid } }
        func days(_ certificate: Certificate) -> Double { certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) / 86_400 }
        if days(ds) > 457 { problems.append("the document signer is valid for \(Int(days(ds))) days; Annex B allows at most 457") }
        if !has(ds, [2, 5, 29, 18]) { problems.append("the document signer has no issuerAltName") }
        if !has(ds, [2, 5, 29, 31]) { problems.append("the document signer has no CRL distribution point") }
        if !has(ds, [2, 5, 29, 14]) { problems.append("the document signer has no subject key identifier") }
        // Table B.3 marks the document signer's keyUsage and extendedKeyUsage critical.
        if ds.extensions.contains(where: { $0.oid == [2, 5, 29, 15] && !$0.critical }) {
            problems.append("the document signer's key usage is not marked critical")
        }
        if ds.extensions.contains(where: { $0.oid == [2, 5, 29, 37] && !$0.critical }) {
            problems.append("the document signer's extended key usage is not marked critical")
        }
        if iaca != nil, !has(ds, [2, 5, 29, 35]) { problems.append("the document signer has no authority key identifier") }
        if let iaca {
            if !has(iaca, [2, 5, 29, 14]) { problems.append("the IACA has no subject key identifier") }
            if days(iaca) > 20 * 365.25 { problems.append("the IACA is valid for \(Int(days(iaca) / 365.25)) years; Annex B allows at most 20") }
            if !has(iaca, [2, 5, 29, 18]) { problems.append("the IACA has no issuerAltName") }
            // Table B.1: a CRL distribution point (pathLenConstraint: see pathLengthViolation).
            if !has(iaca, [2, 5, 29, 31]) { problems.append("the IACA has no CRL distribution point") }
        }
        return problems
    }
}
