import Foundation
import MdocVerifier
import VerificationCore
import WalletEncoding
import WalletJSON
@_spi(FixedExpiryValidationTime) import X509

/// `sdjwt.issuer.chain`: the `x5c` leaf chains, through the other `x5c` certificates, to a root
/// trusted for the credential's `vct` (`--trust-vct VCT=…`, or a root trusted for any type), every
/// certificate valid at the verification time; and the leaf names the `iss`: a URI subject
/// alternative name equal to it, or, for an https `iss`, a DNS name equal to its host.
struct SDJWTIssuerChainCheck: VerificationCheck {
    var id: CheckID { .sdjwtIssuerChain }
    var prerequisites: [CheckID] { [.sdjwtIssuerSignature] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.certificates.first, let payload = state.presentation?.issuerJWT.payload else {
            return .notEvaluated(because: .sdjwtIssuerSignature)
        }
        let vct = state.vct ?? ""
        let time = context.time
        for (position, certificate) in state.certificates.enumerated() {
            if time < certificate.notValidBefore {
                return .failed(
                    .certificateNotYetValid,
                    "x5c[\(position)] (\(certificate.subject)) is not valid before \(RFC3339.format(certificate.notValidBefore)).")
            }
            if time > certificate.notValidAfter {
                return .failed(
                    .certificateExpired, "x5c[\(position)] (\(certificate.subject)) expired at \(RFC3339.format(certificate.notValidAfter)).")
            }
        }
        let roots = state.trustStore.roots(for: vct)
        guard !roots.isEmpty else {
            return .failed(
                .noTrustAnchor,
                "No root is trusted for the credential type \(SDJWTText.printable(vct)); add its issuer's root (--trust-vct VCT=PATH).")
        }
        var chain: [Certificate]
        let cacheKey = SDJWTChainCache.key(state.certificateDER, vct: vct)
        if let cached = state.chainCache.chain(for: cacheKey) {
            chain = cached
        } else if roots.contains(leaf) {
            chain = [leaf]
        } else {
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy(fixedExpiryValidationTime: time)
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(state.certificates.dropFirst()))) {
            case .validCertificate(let validated):
                chain = Array(validated)
                state.chainCache.store(chain, for: cacheKey)
            case .couldNotValidate(let failures):
                let reasons = failures.map { $0.policyFailureReason.description }.joined(separator: "; ")
                return .failed(
                    .untrustedIssuer,
                    "The issuer's certificate \(leaf.subject) does not chain to a root trusted for \(SDJWTText.printable(vct))\(reasons.isEmpty ? "" : " (\(reasons))").",
                    details: ["signer": "\(leaf.subject)", "issuer": "\(leaf.issuer)"])
            }
        }
        let issuer = payload["iss"]?.string ?? ""
        guard Self.names(leaf, issuer: issuer) else {
            return .failed(
                .issuerNameMismatch,
                "The credential's iss \(SDJWTText.printable(issuer)) is not named by its signer's certificate \(leaf.subject) (a URI subject alternative name equal to it, or a DNS name equal to its host)."
            )
        }
        let root = chain.last ?? leaf
        let anchor = state.trustStore.anchor(for: root, docType: vct)
        state.anchor = anchor
        var details = ["signer": "\(leaf.subject)", "root": "\(root.subject)", "chainLength": String(chain.count)]
        if let anchor {
            details["rootSHA256"] = anchor.sha256
            details["trustSource"] = anchor.provenance.kind.rawValue
            details["trustLocation"] = anchor.provenance.location
        }
        return .passed(
            "The issuer's certificate chains to \(root.subject), trusted for this credential type, and names the iss\(anchor.map { "; trusted through \($0.provenance.summary)" } ?? "").",
            details: details)
    }

    /// Whether `certificate` names `issuer`: a URI SAN equal to it, or (https) a DNS SAN equal to its host.
    static func names(_ certificate: Certificate, issuer: String) -> Bool {
        guard !issuer.isEmpty, let names = try? certificate.extensions.subjectAlternativeNames else { return false }
        let host = URLComponents(string: issuer).flatMap { $0.scheme?.lowercased() == "https" ? $0.host?.lowercased() : nil }
        for name in names {
            switch name {
            case .uniformResourceIdentifier(let uri) where uri == issuer: return true
            case .dnsName(let dns) where host != nil && dns.lowercased() == host: return true
            default: continue
            }
        }
        return false
    }
}
