import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

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
        /// The entry's `issuingCountry`, when the VICAL names one.
        public let issuingCountry: String?
        /// The entry's `stateOrProvinceName`, when the VICAL names one.
        public let issuingState: String?
        /// Every docType the entry lists (before the loader's filter).
        public let entryDocTypes: [String]
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
    /// The certificate that signed the VICAL (first of its x5chain), when it parsed.
    public let signer: Certificate?

    /// Adds the roots, each restricted to its docTypes, to a trust store, with their provenance: the
    /// VICAL's `location` (its file or URL, as configured), when the copy was fetched (nil for a
    /// file), the list's issuer, signer, issue and dates, and the entry's authority and country.
    public func add(to store: inout IACATrustStore, location: String = "VICAL", fetchedAt: Date? = nil) {
        let signerSubject = signer.map { "\($0.subject)" } ?? ""
        let signerSHA256 = signer.map(IACATrustStore.sha256) ?? ""
        for root in roots {
            let entry = vical.map {
                RootProvenance.VICALEntry(
                    issuer: $0.provider, signerSubject: signerSubject, signerSHA256: signerSHA256, issueID: $0.issueID, date: $0.date,
                    nextUpdate: $0.nextUpdate, issuingAuthority: root.issuingAuthority, country: root.issuingCountry, state: root.issuingState,
                    docTypes: root.entryDocTypes)
            }
            let provenance = RootProvenance(kind: .vical, location: location, fetchedAt: fetchedAt, vical: entry)
            store.add(root.certificate, docTypes: root.docTypes, provenance: provenance)
        }
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
        // The four checks, one type each in this folder (named after their ids).
        var state = VICALState(bytes: bytes, anchors: anchors, allowOutdated: allowOutdated, clockSkew: clockSkew)
        await runner.run(VICALStructureCheck(), state: &state, scope: scope)
        state.readChain()
        await runner.run(VICALSignatureCheck(), state: &state, scope: scope)
        await runner.run(VICALChainCheck(), state: &state, scope: scope)
        await runner.run(VICALValidityCheck(), state: &state, scope: scope)
        let vical = state.vical, outdated = state.outdated
        if let outdated { runner.warn(.vicalOutdated, outdated, scope: scope) }

        let trusted =
            [CheckID.vicalStructure, .vicalSignature, .vicalChain].allSatisfy { runner.passed($0, scope: scope) }
            && (runner.passed(.vicalValidity, scope: scope) || outdated != nil)
        var roots: [VICALLoadResult.Root] = []
        if trusted, let vical {
            for (position, entry) in vical.entries.enumerated() {
                let kept = filter.map { entry.docTypes.filter($0.contains) } ?? entry.docTypes
                guard !kept.isEmpty else { continue }
                guard let certificate = try? Certificate(derEncoded: entry.certificateDER) else {
                    runner.warn(
                        .vicalEntrySkipped, "VICAL entry \(position) holds a certificate that does not parse; it is not trusted.", scope: scope)
                    continue
                }
                roots.append(
                    VICALLoadResult.Root(
                        certificate: certificate, docTypes: Set(kept), issuingAuthority: entry.issuingAuthority, issuingCountry: entry.issuingCountry,
                        issuingState: entry.stateOrProvinceName,
                        entryDocTypes: entry.docTypes))
            }
        }
        let report = runner.report(flow: "vical")
        return VICALLoadResult(
            checks: report.checks, warnings: report.warnings, vical: vical, trusted: trusted, roots: roots, signer: state.certificates.first)
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
                if !eku.contains(ExtendedKeyUsage.Usage(oid: vicalSignerEKU)) {
                    problems.append("its extended key usage lacks 1.0.18013.5.1.8 (VICAL signer)")
                }
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
