import Foundation
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import X509

/// What the revocation lists said about one MSO.
public struct RevocationEvaluation: Sendable {
    /// What one list, or all of them together, says about the document.
    public enum Answer: Sendable {
        /// The document is neither revoked nor suspended.
        case notRevoked
        /// `revoked` (status 1 or identifier listed) or `suspended` (status 2).
        case revoked(reason: ReasonCode, message: String)
        /// The list could not decide; the failure says why.
        case undetermined(RevocationFailure)
    }

    /// One referenced list.
    public struct ListReport: Sendable {
        /// `identifier_list` or `status_list`.
        public let mechanism: String
        /// The uri the MSO references.
        public let uri: String
        /// Where the list came from (a file, fetched, cached); nil when it could not be obtained.
        public var origin: String?
        /// Who signed the list, once its signature and chain were validated; nil before that.
        public var signer: RevocationListSigner?
        /// The list's `iat`; nil when absent or the list was not decoded.
        public var issuedAt: Date?
        /// The list's `exp`; nil when absent or the list was not decoded.
        public var expiresAt: Date?
        /// What this list says about the document.
        public var answer: Answer
    }

    /// One report per reference in the MSO `status` entry, identifier_list first.
    public let lists: [ListReport]

    /// Revoked if any list says so; otherwise undetermined if any list could not decide; otherwise
    /// not revoked.
    public var answer: Answer {
        guard !lists.isEmpty else { return .undetermined(RevocationFailure(.malformedStatus, "No revocation list was referenced.")) }
        for list in lists { if case .revoked = list.answer { return list.answer } }
        for list in lists { if case .undetermined = list.answer { return list.answer } }
        return .notRevoked
    }

    /// The first list that could not decide, if any.
    public var undecided: RevocationFailure? {
        if case .undetermined(let failure) = answer, lists.isEmpty { return failure }
        for list in lists { if case .undetermined(let failure) = list.answer { return failure } }
        return nil
    }
}

/// Decides whether documents are revoked, from the lists their MSO `status` points to, and records
/// `mdoc.revocation.list` and `mdoc.revocation.status` for each document.
///
/// Lists are only looked up for documents whose issuer signature and chain passed: the uri comes
/// from the issuer, and an untrusted MSO must not make the verifier fetch anything.
///
/// Outcomes: not revoked → `mdoc.revocation.status` passed; revoked or suspended → failed; a list
/// that is unavailable, expired, stale, badly signed, untrusted, or does not cover the document →
/// undetermined: `mdoc.revocation.list` is an `error` (or, under ``RevocationPolicy/Undetermined/warning``,
/// both checks are skipped with the reason and a warning). Never passed, never silently revoked.
public struct RevocationChecker: Sendable {
    /// Where the lists are obtained (files, the network, a cache).
    public let source: any RevocationListSource
    /// The trusted roots a list signer's x5chain must chain to.
    public let trustStore: IACATrustStore
    /// What an undetermined answer means, and how old and large a list may be.
    public let policy: RevocationPolicy
    /// Keys trusted directly for lists that carry no x5chain (for example the IETF examples).
    public let pinnedSignerKeys: [COSEPublicKey]

    /// Revocation turned off by configuration: both checks are skipped with reason `disabled` for a
    /// document whose MSO names a list.
    public let isDisabled: Bool
    /// Why revocation is off (``off(because:trustStore:)``), shown in every report it skips; nil when it is on.
    public let disabledBecause: String?

    /// Creates a checker that obtains lists from `source` and trusts their signers through `trustStore` or `pinnedSignerKeys`.
    public init(
        source: any RevocationListSource, trustStore: IACATrustStore, policy: RevocationPolicy = .strict, pinnedSignerKeys: [COSEPublicKey] = []
    ) {
        self.source = source
        self.trustStore = trustStore
        self.policy = policy
        self.pinnedSignerKeys = pinnedSignerKeys
        self.isDisabled = false
        self.disabledBecause = nil
    }

    private init(disabledWith trustStore: IACATrustStore, because reason: String) {
        self.source = RevocationListSources([])
        self.trustStore = trustStore
        self.policy = .strict
        self.pinnedSignerKeys = []
        self.isDisabled = true
        self.disabledBecause = reason
    }

    /// Revocation off, by the caller's explicit choice: for a document whose MSO names a list both
    /// checks are skipped with reason `disabled`, and the message gives `reason` (for example "the
    /// deployment has no network access to the issuers' lists"). Seed 002 asks a verifier to check
    /// the revocation list; use this only where that cannot be done, and say why.
    public static func off(because reason: String, trustStore: IACATrustStore = IACATrustStore()) -> RevocationChecker {
        RevocationChecker(disabledWith: trustStore, because: reason)
    }

    /// A checker that checks nothing and says so in every report (`serve --revocation off`).
    public static func disabled(trustStore: IACATrustStore = IACATrustStore()) -> RevocationChecker {
        off(because: "turned off by the configuration (--revocation off)", trustStore: trustStore)
    }

    static let prerequisites: [CheckID] = [.mdocMSOStructure, .mdocIssuerSignature, .mdocIssuerChain]

    /// Every flow's revocation step: `checker` runs the revocation checks; without one, a document
    /// whose MSO names a list gets the warning `revocationNotChecked` (the same words in every flow).
    public static func run(_ checker: RevocationChecker?, documents: [VerifiedDocument], runner: inout CheckRunner) async {
        if let checker {
            await checker.run(documents: documents, runner: &runner)
        } else if documents.contains(where: { $0.msoStatus != nil }) {
            runner.warn(.revocationNotChecked, "The MSO names a revocation list, but no revocation source is configured: revocation was not checked.")
        }
    }

    /// Records the two revocation checks for every document, in the documents' scopes.
    public func run(documents: [VerifiedDocument], runner: inout CheckRunner) async {
        if isDisabled {
            for document in documents {
                let scope = "document[\(document.index)]"
                let outcome: CheckOutcome =
                    document.msoStatus == nil
                    ? .notApplicable("The MSO carries no status entry.")
                    : CheckOutcome(
                        status: .skipped, reason: .revocationDisabled,
                        message:
                            "Revocation checking is off (\(disabledBecause ?? "turned off by the configuration")): the document is not known to be valid or revoked."
                    )
                var state = RevocationCheckState(document: document, policy: policy, fixedOutcome: outcome)
                await runner.run(RevocationListCheck(), state: &state, scope: scope)
                await runner.run(RevocationStatusCheck(), state: &state, scope: scope)
            }
            return
        }
        for document in documents {
            let scope = "document[\(document.index)]"
            let ready = Self.prerequisites.allSatisfy { runner.passed($0, scope: scope) }
            var evaluation: RevocationEvaluation?
            var statusFailure: RevocationFailure?
            if ready, let status = document.msoStatus {
                do {
                    let references = try MSOStatusReference.references(in: status)
                    // The document's own root; for a pinned document signer, the signer itself (its list
                    // must be signed by a certificate pinned beside it for the same issuer).
                    let root = document.validatedChain.count > 1 ? document.validatedChain.last : nil
                    let pinned = document.validatedChain.count == 1 ? document.validatedChain.first : nil
                    evaluation = await evaluate(
                        references: references, docType: document.docType, documentRoot: root, pinnedDocumentSigner: pinned, at: runner.context.time)
                } catch {
                    statusFailure = error
                }
            }
            let undecided = statusFailure ?? evaluation?.undecided
            var state = RevocationCheckState(document: document, policy: policy, evaluation: evaluation, failure: undecided)
            await runner.run(RevocationListCheck(), state: &state, scope: scope)
            if let undecided, policy.undetermined == .warning, runner.status(of: .mdocRevocationList, scope: scope) == .skipped {
                runner.warn(undecided.reason, "Revocation of document[\(document.index)] could not be decided: \(undecided.message)", scope: scope)
            }
            await runner.run(RevocationStatusCheck(), state: &state, scope: scope)
        }
    }

    /// Looks up every reference. Never throws: what cannot be decided is an undetermined answer.
    /// `documentRoot` is the trusted root the document signer chained to; the list must chain to it.
    /// `pinnedDocumentSigner` is the document signer when it is trusted directly (no IACA): the list
    /// must then be signed by a certificate pinned beside it for the same issuer.
    public func evaluate(
        references: [MSOStatusReference], docType: String, documentRoot: Certificate?, pinnedDocumentSigner: Certificate? = nil, at time: Date
    ) async -> RevocationEvaluation {
        var lists: [RevocationEvaluation.ListReport] = []
        for reference in references {
            var report = RevocationEvaluation.ListReport(mechanism: reference.mechanism, uri: reference.uri, answer: .notRevoked)
            do {
                try await lookUp(
                    reference, docType: docType, documentRoot: documentRoot, pinnedDocumentSigner: pinnedDocumentSigner, at: time, report: &report)
            } catch let failure as RevocationFailure {
                report.answer = .undetermined(failure)
            } catch let failure as TrustDocumentFetchFailure {
                report.answer = .undetermined(RevocationFailure(fetching: failure))
            } catch {
                report.answer = .undetermined(
                    RevocationFailure(.listUnavailable, "The revocation list for \(reference.uri) could not be obtained.", retryable: true))
            }
            lists.append(report)
        }
        return RevocationEvaluation(lists: lists)
    }

    private func lookUp(
        _ reference: MSOStatusReference, docType: String, documentRoot: Certificate?, pinnedDocumentSigner: Certificate?, at time: Date,
        report: inout RevocationEvaluation.ListReport
    ) async throws {
        let document = try await source.list(for: reference.uri, at: time)
        report.origin = document.origin
        let token = try RevocationListToken(bytes: document.bytes)
        guard token.kind == reference.expectedKind else {
            throw RevocationFailure(
                .malformedList,
                "The MSO references a \(reference.mechanism) at \(reference.uri), but the list found there is a \(token.kind.rawValue).")
        }
        guard let subject = token.subject else {
            throw RevocationFailure(.uriMismatch, "The revocation list has no sub claim, so it cannot be matched to \(reference.uri).")
        }
        guard subject == reference.uri else {
            throw RevocationFailure(.uriMismatch, "The revocation list is for \(subject), not for \(reference.uri) as the MSO says.")
        }
        report.issuedAt = token.issuedAt
        report.expiresAt = token.expiresAt
        report.signer = try await ListSignerValidation.validate(
            token: token, reference: reference, docType: docType, trustStore: trustStore,
            documentRoot: documentRoot, pinnedDocumentSigner: pinnedDocumentSigner, pinnedKeys: pinnedSignerKeys, at: time)
        let skew = Double(policy.clockSkew.components.seconds)
        if let issuedAt = token.issuedAt, issuedAt.timeIntervalSince(time) > skew {
            throw RevocationFailure(
                .listNotYetValid,
                "The revocation list was issued at \(RFC3339.format(issuedAt)), after the verification time \(RFC3339.format(time)).")
        }
        if let expiresAt = token.expiresAt, time.timeIntervalSince(expiresAt) > skew {
            throw RevocationFailure(
                .listExpired,
                "The revocation list expired at \(RFC3339.format(expiresAt)); the verification time is \(RFC3339.format(time)). A current list is needed.",
                retryable: true)
        }
        if let maximumAge = policy.maximumListAge {
            guard let issuedAt = token.issuedAt else {
                throw RevocationFailure(
                    .listStale,
                    "The revocation list has no iat, so its age cannot be judged (the policy accepts lists up to \(maximumAge.components.seconds) s old)."
                )
            }
            if time.timeIntervalSince(issuedAt) > Double(maximumAge.components.seconds) + skew {
                throw RevocationFailure(
                    .listStale,
                    "The revocation list was issued at \(RFC3339.format(issuedAt)), more than \(maximumAge.components.seconds) s before the verification time \(RFC3339.format(time)); a fresher list is needed.",
                    retryable: true)
            }
        }

        switch reference {
        case .identifierList(let id, _, _):
            guard let list = token.identifierList else { throw RevocationFailure(.malformedList, "The identifier list is missing.") }
            if list.identifiers.contains(id) {
                report.answer = .revoked(
                    reason: .revoked, message: "The document is revoked: its identifier is on the identifier list at \(reference.uri).")
            } else {
                report.answer = .notRevoked
            }
        case .statusList(let index, _, _):
            guard let list = token.statusList else { throw RevocationFailure(.malformedList, "The status list is missing.") }
            let entries = try list.decompressed(maximumSize: policy.maximumStatusListSize)
            guard let value = RevocationListToken.StatusList.status(at: index, bits: list.bits, in: entries) else {
                throw RevocationFailure(
                    .indexOutOfRange,
                    "The document's status-list index is outside the list at \(reference.uri) (\(entries.count * 8 / list.bits) entries).")
            }
            switch value {
            case 0: report.answer = .notRevoked
            case 1:
                report.answer = .revoked(
                    reason: .revoked, message: "The document is revoked: its status-list entry at \(reference.uri) is 1 (INVALID).")
            case 2:
                report.answer = .revoked(
                    reason: .suspended, message: "The document is suspended: its status-list entry at \(reference.uri) is 2 (SUSPENDED).")
            default:
                throw RevocationFailure(
                    .statusValueUnknown, "The document's status-list entry at \(reference.uri) is \(value), a value this verifier does not interpret."
                )
            }
        }
    }
}
