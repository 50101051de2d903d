import WalletEncoding

/// Unpadded base64url as JOSE writes it (RFC 7515 §2): the URL-safe alphabet only, no `=`, no
/// whitespace. Anything else is refused.
enum Base64URLStrict {
    static func decode(_ text: Substring, part: String) throws(JOSEError) -> [UInt8] {
        if text.isEmpty { return [] }
        // Read where the text is, in one pass.
        var text = text
        let decoded = text.withUTF8 { Base64.decodeURLUnpadded($0) }
        guard let bytes = decoded else {
            throw JOSEError(.invalidBase64URL, "The \(part) is not unpadded base64url (RFC 7515 §2: A–Z a–z 0–9 - _ only, no '=' or whitespace).")
        }
        return bytes
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encodeURL(bytes)
    }
}
