import Foundation
import Mdoc
import SwiftASN1
import VerificationCore
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

/// `mdoc.issuer.chain` (ISO 18013-5 §9.1.2.4, §9.3.3): the document signer is issued by a trusted
/// IACA root for this docType (or is itself trusted), every x5chain certificate valid at the
/// verification time. A passport (photo ID) chains only to a root scoped to its docType
/// (``IACATrustStore/scopeRequiredDocTypes``); one that chains to a root trusted for any docType fails
/// with `rootNotScopedForDocType` and a message saying how to scope it.
///
/// Bounded work against hostile input: the chain check runs only after the issuer signature verified
/// with the signer's key, and the path is built from the trust store alone — Annex B has the IACA
/// issue the document signer directly, so other x5chain certificates are never candidates (a mesh of
/// certificates that can all sign each other cannot make path search exponential).
struct IssuerChainCheck: VerificationCheck {
    var id: CheckID { .mdocIssuerChain }
    var prerequisites: [CheckID] { MdocPrerequisites.documentStructureAndSignature }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let certificates = state.certificates else {
            return .notEvaluated(because: .mdocDocumentStructure)
        }
        let parsed: [ValidatedChainCache.ParsedCertificate]
        switch certificates {
        case .failure(let failure): return .failed(failure.reasonCode, failure.checkMessage)
        case .success(let list): parsed = list
        }
        guard !parsed.isEmpty else {
            return .failed(.missingCertificateChain, "x5chain is empty.")
        }
        let time = context.time
        // A chain validated earlier with this verifier's trust store, for this docType, valid now. Its
        // roots were not empty then, and the trust store cannot change, so they are not empty now.
        let cacheKey = ValidatedChainCache.Key(certificates: parsed, docType: document.docType)
        let cached = state.chainCache.chain(for: cacheKey, at: time)
        var roots: [Certificate] = []
        if cached == nil {
            roots = state.trustStore.roots(for: document.docType)
            guard !roots.isEmpty || !state.trustStore.unscopedRootsRefused(for: document.docType).isEmpty else {
                return .failed(
                    .noTrustAnchor,
                    "No trusted IACA root is configured for \(document.docType); add the issuing authority's root certificate to the trust store (\(IACATrustStore.requiresScopedRoot(document.docType) ? "--trust-doctype \(document.docType)=PATH" : "--trust"))."
                )
            }
        }
        // Expiry first, with its own reason, so "expired" is not reported as "untrusted". Every x5chain
        // certificate, also those the validated chain does not use.
        for position in parsed.indices {
            let notBefore = parsed[position].notValidBefore
            let notAfter = parsed[position].notValidAfter
            if time < notBefore {
                let subject = parsed[position].subject
                return .failed(
                    .certificateNotYetValid,
                    "Certificate \(position) of x5chain (\(subject)) is not valid before \(RFC3339.format(notBefore)); the verification time is \(RFC3339.format(time)).",
                    details: ["subject": subject, "notBefore": RFC3339.format(notBefore)])
            }
            if time > notAfter {
                let subject = parsed[position].subject
                return .failed(
                    .certificateExpired,
                    "Certificate \(position) of x5chain (\(subject)) expired at \(RFC3339.format(notAfter)); the verification time is \(RFC3339.format(time)).",
                    details: ["subject": subject, "notAfter": RFC3339.format(notAfter)])
            }
        }
        if let cached {
            state.chain = cached
            return cached.pinned ? pinned(cached) : passed(cached)
        }
        let leaf = parsed[0].certificate
        // A document signer configured as a trust anchor itself (pinned) is trusted directly: RFC 5280
        // path validation would refuse it as a root because it is not a CA.
        if roots.contains(leaf) {
            let entry = state.chainCache.store(
                [leaf], pinned: true, anchor: state.trustStore.anchor(for: leaf, docType: document.docType), for: cacheKey)
            state.chain = entry
            return pinned(entry)
        }
        var failures: [CertificateValidationResult.PolicyFailure] = []
        if !roots.isEmpty {
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                CriticalExtendedKeyUsagePolicy()
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
            case .validCertificate(let validated):
                let chain = Array(validated)
                let anchor = chain.last.flatMap { state.trustStore.anchor(for: $0, docType: document.docType) }
                let entry = state.chainCache.store(chain, anchor: anchor, for: cacheKey)
                state.chain = entry
                return passed(entry)
            case .couldNotValidate(let policyFailures):
                failures = policyFailures
            }
        }
        // A passport's signer that chains only to a root trusted for any docType: refused, with how
        // to scope the root (seed 002: "a valid X.509 chain of trust to the Apple … IACA"). Looked
        // for only once the scoped roots failed, so an accepted passport costs one validation.
        let refused = state.trustStore.unscopedRootsRefused(for: document.docType)
        if !refused.isEmpty, let unscoped = await Self.chainRoot(leaf, roots: refused, at: time) {
            return .failed(
                .rootNotScopedForDocType,
                "The document signer \(leaf.subjectSummary) chains to \(unscoped.subjectSummary), a root trusted for any docType; a \(document.docType) document (passport) must chain to a root trusted for its docType. Scope that root: --trust-doctype \(document.docType)=PATH instead of --trust (config file: \"trustDocTypes\": [\"\(document.docType)=PATH\"]), or load it from a VICAL entry listing \(document.docType).",
                details: ["signer": leaf.subjectSummary, "root": unscoped.subjectSummary, "docType": document.docType])
        }
        guard !roots.isEmpty else {
            return .failed(
                .noTrustAnchor,
                "No trusted IACA root is configured for \(document.docType); add the issuing authority's root certificate to the trust store (--trust-doctype \(document.docType)=PATH)."
            )
        }
        let reasons = failures.map { $0.policyFailureReason.description }
        let rootNames = roots.map(\.subjectSummary).joined(separator: "; ")
        var detail = reasons.isEmpty ? "no trusted root issued \(leaf.subjectSummary)" : reasons.joined(separator: "; ")
        if parsed.count > 1 {
            detail +=
                "; the other \(parsed.count - 1) x5chain certificate(s) are not used: ISO 18013-5 Annex B has the IACA issue the document signer directly"
        }
        let place = IssuerPlace(leaf.issuer)
        var untrustedDetails = ["signer": leaf.subjectSummary, "issuer": leaf.issuer.description]
        untrustedDetails["issuerCountry"] = place.country
        untrustedDetails["issuerState"] = place.state
        return .failed(
            .untrustedIssuer,
            "The document signer \(leaf.subjectSummary) does not chain to a trusted IACA root (\(detail)). \(place.sentence) Trusted roots for \(document.docType): \(rootNames). A signer no trusted root vouches for makes this test data at best (such as the mock data ProximityReader returns under a developer integrator profile), never a real document.",
            details: untrustedDetails)
    }

    /// The root (or pinned signer) among `roots` that vouches for `leaf` at `time`; nil when none.
    static func chainRoot(_ leaf: Certificate, roots: [Certificate], at time: Date) async -> Certificate? {
        guard !roots.isEmpty else { return nil }
        if roots.contains(leaf) { return leaf }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CriticalExtendedKeyUsagePolicy()
        }
        if case .validCertificate(let chain) = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) { return chain.last }
        return nil
    }

    private func pinned(_ entry: ValidatedChainCache.Entry) -> CheckOutcome {
        let signer = entry.subjects.first ?? ""
        return .passed {
            (
                "The document signer \(signer) is itself in the trust store (pinned)\(Self.through(entry.anchor)); it is valid at the verification time.",
                Self.anchorDetails(entry.anchor, subject: signer).merging(["signer": signer, "pinned": "true", "chainLength": "1"]) { $1 }
            )
        }
    }

    private func passed(_ entry: ValidatedChainCache.Entry) -> CheckOutcome {
        let (root, signer, length) = (entry.subjects.last ?? "", entry.subjects.first ?? "", entry.chain.count)
        return .passed {
            (
                "The document signer chains to the trusted IACA \(root)\(Self.through(entry.anchor)); every certificate is valid at the verification time.",
                Self.anchorDetails(entry.anchor, subject: root).merging(["signer": signer, "iaca": root, "chainLength": String(length)]) { $1 }
            )
        }
    }

    /// ", trusted through <where the root came from>", or nothing when the anchor is unknown.
    static func through(_ anchor: IACATrustStore.Anchor?) -> String {
        guard let anchor else { return "" }
        return ", trusted through \(anchor.provenance.summary)"
    }

    /// The anchoring root and its source: `rootSubject`, `rootSHA256`, `trustSource` (file, url,
    /// vical, memory) and `trustLocation` (the path, URL or VICAL as configured).
    static func anchorDetails(_ anchor: IACATrustStore.Anchor?, subject: String) -> [String: String] {
        guard let anchor else { return [:] }
        var details = [
            "rootSubject": subject, "rootSHA256": anchor.sha256, "trustSource": anchor.provenance.kind.rawValue,
            "trustLocation": anchor.provenance.location,
        ]
        if let vical = anchor.provenance.vical {
            details["vicalIssuer"] = vical.issuer
            details["vicalDate"] = RFC3339.format(vical.date)
            if let issueID = vical.issueID { details["vicalIssueID"] = String(issueID) }
            if let authority = vical.issuingAuthority { details["issuingAuthority"] = authority }
            if let country = vical.country { details["issuingCountry"] = country }
            if let state = vical.state { details["issuingState"] = state }
        }
        return details
    }
}
