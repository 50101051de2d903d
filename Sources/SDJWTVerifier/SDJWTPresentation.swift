import Crypto
import WalletEncoding
import WalletJSON

/// An SD-JWT presentation as received (IETF SD-JWT, RFC 9901 §4):
/// `<issuer-signed JWT>~<Disclosure 1>~…~<Disclosure N>~<optional KB-JWT>`. Parsing reads the shape
/// only: the three parts of each JWT, each disclosure decoded from strict base64url as a JSON array,
/// within the limits below, all before any signature is verified. Every digest and `sd_hash` is
/// computed over the text exactly as received.
public struct SDJWTPresentation: Sendable {
    /// The largest presentation read, bytes.
    public static let maximumLength = 256 * 1024
    /// The most disclosures one presentation may carry.
    public static let maximumDisclosures = 256
    /// The largest disclosure, bytes of its base64url text.
    public static let maximumDisclosureLength = 16 * 1024

    /// The issuer-signed JWT in compact form, as received.
    public let issuerJWT: CompactJWS
    /// The disclosures in the order received.
    public let disclosures: [SDJWTDisclosure]
    /// The Key Binding JWT, when the presentation ends with one (it does not end with `~`).
    public let keyBindingJWT: CompactJWS?
    /// The text the KB-JWT's `sd_hash` is computed over: everything up to and including the last `~`.
    public let hashedPart: Substring

    /// Reads a presentation. Throws ``SDJWTError`` (`malformedPresentation`, `tooLarge`) naming the part at fault.
    public init(_ text: String) throws(SDJWTError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw SDJWTError(.tooLarge, "The presentation is larger than \(Self.maximumLength) bytes.")
        }
        guard let lastTilde = text.lastIndex(of: "~") else {
            throw SDJWTError(.malformedSDJWT, "An SD-JWT presentation is <issuer JWT>~<disclosures>~[<KB-JWT>]; this text has no ~.")
        }
        let parts = text[..<lastTilde].split(separator: "~", omittingEmptySubsequences: false)
        guard parts.count - 1 <= Self.maximumDisclosures else {
            throw SDJWTError(.tooLarge, "The presentation carries \(parts.count - 1) disclosures; at most \(Self.maximumDisclosures) are read.")
        }
        issuerJWT = try CompactJWS(parts[0], what: "the issuer-signed JWT")
        var disclosures: [SDJWTDisclosure] = []
        disclosures.reserveCapacity(parts.count - 1)
        for (index, part) in parts.dropFirst().enumerated() {
            disclosures.append(try SDJWTDisclosure(part, position: index))
        }
        self.disclosures = disclosures
        let tail = text[text.index(after: lastTilde)...]
        keyBindingJWT = tail.isEmpty ? nil : try CompactJWS(tail, what: "the Key Binding JWT")
        hashedPart = text[...lastTilde]
    }
}

/// A compact JWS as received: its three parts, the decoded header and payload (strict JSON objects).
public struct CompactJWS: Sendable {
    /// The compact text as received.
    public let text: Substring
    /// The protected header.
    public let header: StrictJSON.Object
    /// The payload.
    public let payload: StrictJSON.Object
    /// The signature bytes.
    public let signature: [UInt8]
    /// The JWS signing input: the header and payload parts with the dot between them, as received.
    public var signingInput: Substring { text[..<signatureStart] }
    private let signatureStart: Substring.Index

    /// The largest header or payload read, bytes.
    public static let maximumPartLength = 128 * 1024

    init(_ text: Substring, what: String) throws(SDJWTError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw SDJWTError(.malformedSDJWT, "\(what) is not a compact JWS (three dot-separated parts); it has \(parts.count).")
        }
        func object(_ part: Substring, _ name: String) throws(SDJWTError) -> StrictJSON.Object {
            guard part.utf8.count <= Self.maximumPartLength * 4 / 3 + 4, let bytes = SDJWTBase64.decode(part) else {
                throw SDJWTError(.malformedSDJWT, "The \(name) of \(what) is not strict base64url (no padding, no other characters).")
            }
            let value: StrictJSON.Value
            do { value = try StrictJSON.parse(bytes) } catch {
                throw SDJWTError(.malformedSDJWT, "The \(name) of \(what) is not strict JSON (\(error.code)); duplicate members are refused.")
            }
            guard let object = value.object else { throw SDJWTError(.malformedSDJWT, "The \(name) of \(what) is not a JSON object.") }
            return object
        }
        header = try object(parts[0], "header")
        payload = try object(parts[1], "payload")
        guard let signature = SDJWTBase64.decode(parts[2]) else {
            throw SDJWTError(.malformedSDJWT, "The signature of \(what) is not strict base64url.")
        }
        self.signature = signature
        self.text = text
        // Three parts: the signature follows a dot.
        signatureStart = text.index(before: parts[2].startIndex)
    }
}

/// Strict base64url (RFC 4648 §5) as JWS and SD-JWT use it: the URL-safe alphabet, no padding, no
/// whitespace, and the canonical encoding of its bytes (no stray bits in the last character).
enum SDJWTBase64 {
    static func decode(_ text: Substring) -> [UInt8]? {
        var copy = String(text)
        guard let bytes = copy.withUTF8({ Base64.decodeURLUnpadded($0) }) else { return nil }
        return Base64.encodeURL(bytes) == copy ? bytes : nil
    }
}
