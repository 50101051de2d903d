import Foundation
import VerificationCore

/// What a flow's request expects of the documents a wallet presented, for
/// ``MdocPresentationVerifier``: the docTypes it asked for, whether it asked for a passport, how the
/// physical document's expiry counts, and the flow's own request checks.
public struct MdocPresentationExpectations: Sendable {
    /// How `identity.document.expiry` is run.
    public enum DocumentExpiry: Sendable, Hashable {
        /// Not run (`mdoc verify`, passports).
        case notChecked
        /// Run for every document; an expired document is a warning (the web flow, and the in-app
        /// flow when the request does not require an unexpired document).
        case advisory
        /// Run for every document and required: an expired document, or one that discloses no
        /// `expiry_date`, is rejected (the request's `requireUnexpired`).
        case required
    }

    /// The docTypes the request asked for; nil when it named none. The mdoc checks accept only
    /// these (within what the policy accepts), so `mdoc.docType` fails for any other.
    public var requestedDocTypes: Set<String>?
    /// The request asked for a passport Digital ID: `photoid.docType` is run.
    public var requirePhotoID: Bool
    /// How the physical document's expiry counts.
    public var documentExpiry: DocumentExpiry
    /// The flow's own comparison of the documents with its request (`identity.request.elements`,
    /// `web.request.elements`, ...), run in order after the expiry checks, before revocation. Each
    /// names `mdoc.response.structure` as a prerequisite, so a response that did not decode skips them.
    public var requestChecks: [any VerificationCheck<PresentedDocuments>]

    /// Expectations of a flow; the defaults are those of a response verified without a request.
    public init(
        requestedDocTypes: Set<String>? = nil, requirePhotoID: Bool = false, documentExpiry: DocumentExpiry = .notChecked,
        requestChecks: [any VerificationCheck<PresentedDocuments>] = []
    ) {
        self.requestedDocTypes = requestedDocTypes
        self.requirePhotoID = requirePhotoID
        self.documentExpiry = documentExpiry
        self.requestChecks = requestChecks
    }

    /// `policy` with `identity.document.expiry` at the level ``documentExpiry`` asks for: a flow
    /// creates its runner with this before its own checks run.
    public func requirements(_ policy: VerificationPolicy) -> VerificationPolicy {
        switch documentExpiry {
        case .notChecked: return policy
        case .advisory: return policy.with(.identityDocumentExpiry, .advisory)
        case .required: return policy.with(.identityDocumentExpiry, .required)
        }
    }
}

/// The documents the mdoc checks decoded, as the request checks and `photoid.docType` read them.
public struct PresentedDocuments: Sendable {
    /// The decoded documents, in response order (whatever their checks' outcomes).
    public let documents: [VerifiedDocument]
    /// How many documents the response holds, decoded or not.
    public let documentCount: Int

    /// The documents of a response holding `documentCount` documents.
    public init(documents: [VerifiedDocument], documentCount: Int) {
        self.documents = documents
        self.documentCount = documentCount
    }
}
