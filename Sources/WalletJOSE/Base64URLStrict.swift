import WalletEncoding

/// Unpadded base64url as JOSE writes it (RFC 7515 §2): the URL-safe alphabet only, no `=`, no
/// whitespace. Anything else is refused.
enum Base64URLStrict {
    /// The bytes of `text`; `part` names it in the error (written only for an error).
    static func decode(_ text: Substring, part: @autoclosure () -> String) throws(JOSEError) -> [UInt8] {
        if text.isEmpty { return [] }
        // Read where the text is, in one pass.
        var text = text
        let decoded = text.withUTF8 { Base64.decodeURLUnpadded($0) }
        guard let bytes = decoded else { throw invalid(part()) }
        return bytes
    }

    /// The bytes of base64url text given as its UTF-8 bytes; the same rules and error as
    /// ``decode(_:part:)`` on the same text.
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>, part: @autoclosure () -> String) throws(JOSEError) -> [UInt8] {
        if utf8.isEmpty { return [] }
        guard let bytes = Base64.decodeURLUnpadded(utf8) else { throw invalid(part()) }
        return bytes
    }

    private static func invalid(_ part: String) -> JOSEError {
        JOSEError(.invalidBase64URL, "The \(part) is not unpadded base64url (RFC 7515 §2: A–Z a–z 0–9 - _ only, no '=' or whitespace).")
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encodeURL(bytes)
    }
}
