import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

/// Who signed a revocation list, once verified.
public struct RevocationListSigner: Sendable, Hashable {
    /// The signer's certificate subject, or "pinned key".
    public let signer: String
    /// The trusted root the chain ends at, or nil for a pinned key.
    public let root: String?
}

/// The signature and the signer's chain of a revocation list: the COSE_Sign1 verifies with the key
/// of the first x5chain certificate (or, without x5chain, the certificate the MSO names, or a pinned
/// key); the x5chain (leaf, then intermediates) chains to a trusted root for the document's docType
/// — the same root as the document signer's when that is known — and every certificate is valid at
/// the verification time.
enum ListSignerValidation {
    /// At most this many x5chain certificates are read (leaf and intermediate, and one more).
    static let maxChainLength = 4

    static func validate(
        token: RevocationListToken, reference: MSOStatusReference, docType: String, trustStore: IACATrustStore,
        documentRoot: Certificate?, pinnedDocumentSigner: Certificate? = nil, pinnedKeys: [COSEPublicKey], at time: Date
    ) async throws(RevocationFailure) -> RevocationListSigner {
        var ders: [[UInt8]]
        do {
            ders = try token.sign1.headers.x5chain()
        } catch  where error.code == .missingCertificateChain {
            ders = []
        } catch {
            throw RevocationFailure(.malformedList, "The revocation list's x5chain is malformed (\(error.message)).")
        }
        guard ders.count <= maxChainLength else {
            throw RevocationFailure(
                .malformedList, "The revocation list's x5chain holds \(ders.count) certificates; at most \(maxChainLength) are read.")
        }
        if ders.isEmpty, let certificate = reference.certificate { ders = [certificate] }
        if let certificate = reference.certificate, let leaf = ders.first, leaf != certificate {
            throw RevocationFailure(.untrustedSigner, "The revocation list is signed by another certificate than the one the MSO names for it.")
        }
        if ders.isEmpty {
            for key in pinnedKeys where (try? token.sign1.isValidSignature(key: key)) == true {
                return RevocationListSigner(signer: "pinned key", root: nil)
            }
            if pinnedKeys.isEmpty {
                throw RevocationFailure(
                    .untrustedSigner, "The revocation list carries no x5chain and no signer key is pinned, so its signer cannot be trusted.")
            }
            throw RevocationFailure(.signatureInvalid, "The revocation list's signature does not verify with any pinned key.")
        }

        var certificates: [Certificate] = []
        for (position, der) in ders.enumerated() {
            do { certificates.append(try Certificate(derEncoded: der)) } catch {
                throw RevocationFailure(.untrustedSigner, "Certificate \(position) of the revocation list's x5chain does not parse.")
            }
        }
        let leaf = certificates[0]
        guard let key = COSEPublicKey(certificate: leaf) else {
            throw RevocationFailure(.untrustedSigner, "The revocation list signer's key (\(leaf.subject)) is not an EC key on P-256, P-384 or P-521.")
        }
        let valid: Bool
        do { valid = try token.sign1.isValidSignature(key: key) } catch {
            throw RevocationFailure(.signatureInvalid, "The revocation list's signature cannot be verified: \(error.message).")
        }
        guard valid else {
            throw RevocationFailure(
                .signatureInvalid,
                "The revocation list's COSE_Sign1 signature does not verify with the key of \(leaf.subject): the list was altered or signed by another key."
            )
        }
        // The list-signer profile: a certificate made for another mdoc role (a document signer, a
        // reader, a VICAL signer) or a CA does not sign revocation lists.
        let violations = listSignerViolations(leaf)
        guard violations.isEmpty else {
            throw RevocationFailure(
                .untrustedSigner, "The revocation list signer \(leaf.subject) is not a list signer: \(violations.joined(separator: "; ")).")
        }
        for (position, certificate) in certificates.enumerated() {
            if time < certificate.notValidBefore {
                throw RevocationFailure(
                    .signerCertificateNotYetValid,
                    "Certificate \(position) of the revocation list's x5chain (\(certificate.subject)) is not valid before \(RFC3339.format(certificate.notValidBefore))."
                )
            }
            if time > certificate.notValidAfter {
                throw RevocationFailure(
                    .signerCertificateExpired,
                    "Certificate \(position) of the revocation list's x5chain (\(certificate.subject)) expired at \(RFC3339.format(certificate.notValidAfter))."
                )
            }
        }

        if let pinned = pinnedDocumentSigner {
            // A pinned document signer has no IACA: only a list signer configured (pinned) beside it
            // for the same issuer is trusted, never whatever root the docType has.
            guard trustStore.roots(for: docType).contains(leaf), leaf.issuer == pinned.issuer else {
                throw RevocationFailure(
                    .untrustedSigner,
                    "The document signer \(pinned.subject) is pinned, so its revocation list must be signed by a certificate pinned in the trust store for the same issuer (\(pinned.issuer)); \(leaf.subject) is not."
                )
            }
            return RevocationListSigner(signer: leaf.subject.description, root: leaf.subject.description)
        }
        var roots = trustStore.roots(for: docType)
        if let documentRoot {
            // The same root as the document signer's, not merely another root trusted for the docType.
            roots = roots.filter { $0 == documentRoot }
        }
        guard !roots.isEmpty else {
            throw RevocationFailure(
                .untrustedSigner, "No trusted root is configured for \(docType), so the revocation list signer cannot be trusted.")
        }
        if roots.contains(leaf) {
            return RevocationListSigner(signer: leaf.subject.description, root: leaf.subject.description)
        }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CriticalExtendedKeyUsagePolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst()))) {
        case .validCertificate(let chain):
            return RevocationListSigner(signer: leaf.subject.description, root: chain.last?.subject.description)
        case .couldNotValidate(let failures):
            let reasons = failures.map { $0.policyFailureReason.description }.joined(separator: "; ")
            let expected = documentRoot.map { " (the document's root is \($0.subject))" } ?? ""
            throw RevocationFailure(
                .untrustedSigner,
                "The revocation list signer \(leaf.subject) does not chain to a trusted root for \(docType)\(expected)\(reasons.isEmpty ? "" : ": " + reasons)."
            )
        }
    }

    static let otherRoleEKUs: [(ASN1ObjectIdentifier, String)] = [
        ([1, 0, 18013, 5, 1, 2], "1.0.18013.5.1.2 (document signer)"),
        ([1, 0, 18013, 5, 1, 6], "1.0.18013.5.1.6 (reader authentication)"),
        ([1, 0, 18013, 5, 1, 8], "1.0.18013.5.1.8 (VICAL signer)"),
    ]

    static func listSignerViolations(_ certificate: Certificate) -> [String] {
        var problems: [String] = []
        if let eku = try? certificate.extensions.extendedKeyUsage {
            for (oid, name) in otherRoleEKUs where eku.contains(ExtendedKeyUsage.Usage(oid: oid)) {
                problems.append("its extended key usage \(name) is for another role")
            }
        }
        if let usage = try? certificate.extensions.keyUsage, !usage.digitalSignature {
            problems.append("its key usage lacks digitalSignature")
        }
        if case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? .notCertificateAuthority {
            problems.append("it is a CA certificate")
        }
        return problems
    }
}
