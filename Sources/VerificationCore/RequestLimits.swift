/// The ISO/IEC 18013-5 data identifier form, as this verifier reads it, of every docType, namespace
/// and data element identifier it puts into a request it creates (and signs).
///
/// ISO/IEC 18013-5 (§7.2, §8.3.2.1.2.1) writes them as `tstr`, and every one it and ISO/IEC 23220 and
/// AAMVA define is a reverse-domain name or an identifier of ASCII letters, digits, `.` and `_`
/// (`org.iso.18013.5.1.mDL`, `age_over_21`). The verifier accepts printable ASCII without space,
/// 0x21 to 0x7E, 1 to ``maxLength`` characters: no space, no control character, and no character
/// outside ASCII, so no right-to-left override, zero-width or look-alike character ever reaches a
/// request the verifier signs.
public enum DataIdentifier {
    /// The longest identifier accepted, in characters (bytes: they are ASCII).
    public static let maxLength = 128

    /// The rule in words, for error messages.
    public static let rule = "1 to \(maxLength) printable ASCII characters (0x21 to 0x7E: no space, control or non-ASCII character)"

    /// Whether `text` has the data identifier form: 1 to ``maxLength`` bytes, each from 0x21 to 0x7E.
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maxLength && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// How much one request creation may ask for and store: the bounds that keep a request cheap to
/// refuse and a request session small, whoever sends it.
///
/// A request names one docType (a web request's `docType`, an in-app descriptor's document), so the
/// docTypes per request are bounded by the request's shape; these bound the rest.
public struct RequestLimits: Sendable, Hashable {
    /// Data elements one request may ask for (per docType; a request has one).
    public var maxElements: Int
    /// Bytes the store may keep for one request session (the recorded request, its nonces and
    /// protocol records, and an in-app request's session binding).
    public var maxSessionBytes: Int

    /// The default elements per docType: three times the 21 elements PassKit can name, and room for
    /// a web request of most of an mDL's ISO/IEC 18013-5 and AAMVA elements.
    public static let defaultMaxElements = 64
    /// The default stored size of a session: above what a request with ``defaultMaxElements``
    /// elements of ``DataIdentifier/maxLength`` characters stores with every protocol offered,
    /// with margin.
    public static let defaultMaxSessionBytes = 131_072

    /// The defaults: ``defaultMaxElements`` elements, ``defaultMaxSessionBytes`` bytes.
    public static let standard = RequestLimits()

    /// Limits with the given values (the defaults when left out).
    public init(maxElements: Int = defaultMaxElements, maxSessionBytes: Int = defaultMaxSessionBytes) {
        self.maxElements = maxElements
        self.maxSessionBytes = maxSessionBytes
    }
}
