import VerificationCore
import WalletJSON

/// A DCQL query (OpenID4VP 1.0 §6) for mdoc credentials: one `mso_mdoc` credential query per
/// requested docType, with `meta.doctype_value` and one claims query per element
/// (`path: [namespace, element]`, `intent_to_retain`).
public struct DCQLQuery: Sendable, Hashable {
    /// One credential query: its id in the `vp_token` and what it asks for.
    public struct CredentialQuery: Sendable, Hashable {
        /// The credential query id (`[A-Za-z0-9_-]+`), the key of its presentations in the `vp_token`.
        public let id: String
        /// The docType and elements asked for.
        public let request: WebDocumentRequest
    }

    /// The credential queries, in request order.
    public let credentials: [CredentialQuery]

    /// One credential query per request; each request is validated and the docTypes must differ.
    /// Throws ``WebRequestError`` for no request, an invalid request or a docType asked twice.
    public init(requests: [WebDocumentRequest]) throws(WebRequestError) {
        guard !requests.isEmpty else { throw WebRequestError("the OpenID4VP request asks for no document") }
        var queries: [CredentialQuery] = []
        for request in requests {
            try request.validate()
            guard !queries.contains(where: { $0.request.docType == request.docType }) else {
                throw WebRequestError("the docType \(request.docType) is requested twice; put all its elements in one request")
            }
            var id = Self.credentialID(docType: request.docType)
            if queries.contains(where: { $0.id == id }) { id += "_\(queries.count + 1)" }
            queries.append(CredentialQuery(id: id, request: request))
        }
        credentials = queries
    }

    /// The stable credential query id of a docType: its characters outside `[A-Za-z0-9_-]` replaced
    /// by `_` (`org.iso.18013.5.1.mDL` → `org_iso_18013_5_1_mDL`).
    public static func credentialID(docType: String) -> String {
        String(
            docType.unicodeScalars.map { scalar -> Character in
                let value = scalar.value
                let allowed =
                    (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) || value == 0x5F || value == 0x2D
                return allowed ? Character(scalar) : "_"
            })
    }

    /// `{"credentials": [{"id", "format": "mso_mdoc", "meta": {"doctype_value"}, "claims": [{"path": [ns, id], "intent_to_retain"}]}]}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("credentials")
        writer.raw("[")
        for (index, query) in credentials.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{")
            writer.key("id")
            writer.string(query.id)
            writer.raw(",")
            writer.key("format")
            writer.string("mso_mdoc")
            writer.raw(",")
            writer.key("meta")
            writer.raw("{")
            writer.key("doctype_value")
            writer.string(query.request.docType)
            writer.raw("},")
            writer.key("claims")
            writer.raw("[")
            for (offset, element) in query.request.elements.enumerated() {
                if offset > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("path")
                writer.raw("[")
                writer.string(element.nameSpace)
                writer.raw(",")
                writer.string(element.identifier)
                writer.raw("],")
                writer.key("intent_to_retain")
                writer.bool(element.intentToRetain)
                writer.raw("}")
            }
            writer.raw("]}")
        }
        writer.raw("]}")
    }

    /// The JSON text of ``write(to:)``.
    public var json: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }
}
