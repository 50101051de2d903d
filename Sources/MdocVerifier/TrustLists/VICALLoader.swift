import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
@_spi(FixedExpiryValidationTime) import X509
import WalletEncoding

/// A VICAL that was checked, and the IACA roots it contributes.
public struct VICALLoadResult: Sendable {
    /// An IACA certificate from a trusted VICAL, with the docTypes it is trusted for.
    public struct Root: Sendable {
        /// The IACA root certificate.
        public let certificate: Certificate
        /// The docTypes the root may vouch for: its entry's, narrowed by the loader's filter.
        public let docTypes: Set<String>
        /// The entry's `issuingAuthority`, when the VICAL names one.
        public let issuingAuthority: String?
    }

    /// `vical.*` results (scope `vical`), to be placed in the verification report.
    public let checks: [CheckResult]
    /// Warnings raised while loading (an outdated VICAL allowed by the loader, an entry whose certificate does not parse).
    public let warnings: [ReportWarning]
    /// The decoded VICAL; nil when it does not have the Annex C shape (`vical.structure` failed).
    public let vical: VICAL?
    /// Whether every VICAL check passed; only then are ``roots`` filled.
    public let trusted: Bool
    /// The IACA roots the VICAL contributes; empty unless ``trusted``.
    public let roots: [Root]

    /// Adds the roots, each restricted to its docTypes, to a trust store.
    public func add(to store: inout IACATrustStore) {
        let source = vical.map { "VICAL \($0.provider)" + ($0.issueID.map { " #\($0)" } ?? "") + " of " + RFC3339.format($0.date) } ?? "VICAL"
        for root in roots { store.add(root.certificate, docTypes: root.docTypes, source: source) }
    }
}

/// Loads a VICAL: verifies it against its configured anchor at the verification time, then yields
/// its IACA certificates, filtered by docType.
public struct VICALLoader: Sendable {
    /// The certificates a VICAL signer must chain to (AAMVA's DTS root, for example).
    public let anchors: [Certificate]
    /// When false (the default) a VICAL past its nextUpdate fails `vical.validity`; when true it is
    /// skipped with a warning.
    public var allowOutdated: Bool
    /// Tolerance for a VICAL dated after the verification time and for one past its nextUpdate.
    public var clockSkew: Duration

    /// Creates a loader that trusts VICALs signed under `anchors`; by default an outdated VICAL fails and the skew is 60 s.
    public init(anchors: [Certificate], allowOutdated: Bool = false, clockSkew: Duration = .seconds(60)) {
        self.anchors = anchors
        self.allowOutdated = allowOutdated
        self.clockSkew = clockSkew
    }

    /// Checks a VICAL at `time`. `docTypes` keeps only entries for those docTypes (nil keeps all);
    /// each root is trusted only for the docTypes its entry lists.
    public func load(bytes: [UInt8], at time: Date, docTypes filter: Set<String>? = nil) async -> VICALLoadResult {
        var runner = CheckRunner(policy: VerificationPolicy(name: "vical@1"), context: VerificationContext(time: time, clockSkew: clockSkew))
        let scope = "vical"
        var vical: VICAL?
        runner.run(CheckID.vicalStructure, requires: [], scope: scope) { () -> CheckOutcome in
            do {
                let decoded = try VICAL(bytes: bytes)
                vical = decoded
                return .passed("VICAL version \(decoded.version) from \(decoded.provider) with \(decoded.entries.count) certificates.",
                               details: ["provider": decoded.provider, "issueID": decoded.issueID.map(String.init) ?? "", "date": RFC3339.format(decoded.date)])
            } catch let error as VICALError {
                return .failed(ReasonCode(error.reason), error.message)
            }
        }

        var chainDERs: [[UInt8]] = []
        var certificates: [Certificate] = []
        var chainProblem: (ReasonCode, String)?
        if let vical {
            do {
                chainDERs = try vical.sign1.headers.x5chain()
                // A signer, an issuing CA and a root (AAMVA's VICAL): more is not read.
                if chainDERs.count > VICALSignerProfile.maxChainLength {
                    chainProblem = ("chainTooLong", "The VICAL's x5chain holds \(chainDERs.count) certificates; at most \(VICALSignerProfile.maxChainLength) are read.")
                    chainDERs = []
                }
                for (position, der) in chainDERs.enumerated() {
                    do { certificates.append(try Certificate(derEncoded: der)) } catch {
                        chainProblem = ("invalidCertificate", "Certificate \(position) of the VICAL's x5chain does not parse.")
                        break
                    }
                }
            } catch {
                chainProblem = (ReasonCode(error.code.rawValue), "The VICAL has no usable x5chain: \(error.message).")
            }
        }

        runner.run(.vicalSignature, requires: [.vicalStructure], scope: scope) {
            guard let vical else { return .failed(.malformedInput, "No VICAL.") }
            if let chainProblem { return .failed(chainProblem.0, chainProblem.1) }
            guard let leaf = certificates.first, let key = COSEPublicKey(certificate: leaf) else {
                return .failed(.unsupportedKey, "The VICAL signer's key is not an EC key on P-256, P-384 or P-521.")
            }
            do {
                guard try vical.sign1.isValidSignature(key: key) else {
                    return .failed(.signatureInvalid, "The VICAL's signature does not verify with the key of \(leaf.subject): it was altered or signed by another key.")
                }
            } catch let error as COSEError {
                return .failed(ReasonCode(error.code.rawValue), "The VICAL's signature cannot be verified: \(error.message).")
            }
            return .passed("The VICAL is signed by \(leaf.subject).", details: ["signer": leaf.subject.description])
        }

        await runner.runAsync(.vicalChain, requires: [.vicalStructure], scope: scope) {
            if let chainProblem { return .failed(chainProblem.0, chainProblem.1) }
            guard let leaf = certificates.first else { return .failed(.missingCertificateChain, "The VICAL has no x5chain.") }
            guard !anchors.isEmpty else { return .failed(.noTrustAnchor, "No VICAL anchor is configured (--vical-trust).") }
            for (position, certificate) in certificates.enumerated() {
                if time < certificate.notValidBefore {
                    return .failed(.certificateNotYetValid, "Certificate \(position) of the VICAL's x5chain (\(certificate.subject)) is not valid before \(RFC3339.format(certificate.notValidBefore)).")
                }
                if time > certificate.notValidAfter {
                    return .failed(.certificateExpired, "Certificate \(position) of the VICAL's x5chain (\(certificate.subject)) expired at \(RFC3339.format(certificate.notValidAfter)); the verification time is \(RFC3339.format(time)).",
                                   details: ["subject": certificate.subject.description, "notAfter": RFC3339.format(certificate.notValidAfter)])
                }
            }
            // The VICAL-signer profile (ISO/IEC 18013-5 Annex C): a document signer or any other
            // mdoc certificate cannot sign a trust list.
            let violations = VICALSignerProfile.violations(leaf)
            guard violations.isEmpty else {
                return .failed(.signerProfileViolation, "The VICAL signer \(leaf.subject) is not a VICAL signer: \(violations.joined(separator: "; ")).", details: ["signer": leaf.subject.description])
            }
            if anchors.contains(leaf) {
                return .passed("The VICAL signer \(leaf.subject) is itself a configured anchor.", details: ["signer": leaf.subject.description])
            }
            var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                CriticalExtendedKeyUsagePolicy()
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst()))) {
            case .validCertificate(let chain):
                return .passed("The VICAL signer chains to the configured anchor \(chain.last?.subject.description ?? "?"); every certificate is valid at the verification time.",
                               details: ["signer": leaf.subject.description, "anchor": chain.last?.subject.description ?? ""])
            case .couldNotValidate(let failures):
                let reasons = failures.map { $0.policyFailureReason.description }.joined(separator: "; ")
                return .failed(.untrustedSigner, "The VICAL signer \(leaf.subject) does not chain to a configured VICAL anchor\(reasons.isEmpty ? "" : " (" + reasons + ")").")
            }
        }

        var outdated: String?
        runner.run(.vicalValidity, requires: [.vicalStructure], scope: scope) {
            guard let vical else { return .failed(.malformedInput, "No VICAL.") }
            let skew = Double(clockSkew.components.seconds)
            if vical.date.timeIntervalSince(time) > skew {
                return .failed(.vicalNotYetValid, "The VICAL is dated \(RFC3339.format(vical.date)), after the verification time \(RFC3339.format(time)).")
            }
            if let next = vical.nextUpdate, time.timeIntervalSince(next) > skew {
                let message = "The VICAL's nextUpdate \(RFC3339.format(next)) has passed at the verification time \(RFC3339.format(time)): a newer VICAL should be used."
                if allowOutdated {
                    outdated = message
                    return CheckOutcome(status: .skipped, reason: .vicalOutdated, message: message + " The policy reports this as a warning.")
                }
                return .failed(.vicalOutdated, message, details: ["nextUpdate": RFC3339.format(next)])
            }
            return .passed("The VICAL dated \(RFC3339.format(vical.date)) is current" + (vical.nextUpdate.map { " until \(RFC3339.format($0))" } ?? "") + ".")
        }
        if let outdated { runner.warn(.vicalOutdated, outdated, scope: scope) }

        let trusted = [CheckID.vicalStructure, .vicalSignature, .vicalChain].allSatisfy { runner.passed($0, scope: scope) }
            && (runner.passed(.vicalValidity, scope: scope) || outdated != nil)
        var roots: [VICALLoadResult.Root] = []
        if trusted, let vical {
            for (position, entry) in vical.entries.enumerated() {
                let kept = filter.map { entry.docTypes.filter($0.contains) } ?? entry.docTypes
                guard !kept.isEmpty else { continue }
                guard let certificate = try? Certificate(derEncoded: entry.certificateDER) else {
                    runner.warn(.vicalEntrySkipped, "VICAL entry \(position) holds a certificate that does not parse; it is not trusted.", scope: scope)
                    continue
                }
                roots.append(VICALLoadResult.Root(certificate: certificate, docTypes: Set(kept), issuingAuthority: entry.issuingAuthority))
            }
        }
        let report = runner.report(flow: "vical")
        return VICALLoadResult(checks: report.checks, warnings: report.warnings, vical: vical, trusted: trusted, roots: roots)
    }
}


/// The VICAL signer certificate profile: extended key usage 1.0.18013.5.1.8 (VICAL signing) and a key
/// usage that allows signing — nonRepudiation or digitalSignature (AAMVA's real signer
/// `CN=AAMVA Prod Vical-Signer-01` has nonRepudiation only, critical) — and not a CA.
enum VICALSignerProfile {
    static let vicalSignerEKU: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 8]
    /// Signer, issuing CA and root, and one more.
    static let maxChainLength = 4

    static func violations(_ certificate: Certificate) -> [String] {
        var problems: [String] = []
        do {
            if let eku = try certificate.extensions.extendedKeyUsage {
                if !eku.contains(ExtendedKeyUsage.Usage(oid: vicalSignerEKU)) { problems.append("its extended key usage lacks 1.0.18013.5.1.8 (VICAL signer)") }
            } else {
                problems.append("it has no extended key usage (1.0.18013.5.1.8 is required)")
            }
        } catch { problems.append("its extended key usage extension is malformed") }
        do {
            if let usage = try certificate.extensions.keyUsage, !usage.digitalSignature && !usage.nonRepudiation {
                problems.append("its key usage allows neither digitalSignature nor nonRepudiation")
            }
        } catch { problems.append("its key usage extension is malformed") }
        if case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? .notCertificateAuthority {
            problems.append("it is a CA certificate")
        }
        return problems
    }
}
