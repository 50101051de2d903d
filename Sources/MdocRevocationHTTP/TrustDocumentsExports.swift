@_exported import TrustDocuments

/// The former name of ``HTTPTrustDocumentTransport``: revocation lists are one of the trust documents
/// it fetches. This module re-exports `TrustDocuments`, where the transport now lives.
public typealias HTTPRevocationTransport = HTTPTrustDocumentTransport

/// An earlier name of ``HTTPTrustDocumentTransport``.
@available(*, deprecated, renamed: "HTTPTrustDocumentTransport")
public typealias URLSessionRevocationTransport = HTTPTrustDocumentTransport
