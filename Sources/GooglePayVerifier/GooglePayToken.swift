import VerificationCore
import WalletEncoding
import WalletJSON

/// A Google Pay payment token (`PaymentMethodToken`, protocolVersion ECv2) as received: the
/// strings that are signed are kept exactly as they were in the token, never re-encoded.
public struct GooglePayToken: Sendable {
    /// The only protocol version this verifier reads.
    public static let ecV2 = "ECv2"
    /// The most signatures over the intermediate key accepted (Google sends one).
    public static let maximumSignatures = 8
    /// The largest `signedKey` accepted, in bytes.
    public static let maximumSignedKeySize = 4096
    /// The largest decoded signature accepted, in bytes (a DER ECDSA P-256 signature is at most 72).
    public static let maximumSignatureSize = 256

    /// `protocolVersion`: always ECv2 here.
    public let protocolVersion: String
    /// `signature`, decoded: DER ECDSA over the signed message.
    public let signature: [UInt8]
    /// `intermediateSigningKey.signedKey`: the JSON text, as received (what the root keys signed).
    public let signedKey: String
    /// `intermediateSigningKey.signatures`, decoded.
    public let signedKeySignatures: [[UInt8]]
    /// `signedMessage`: the JSON text, as received (what the intermediate key signed).
    public let signedMessage: String

    /// Reads a token. Throws ``TokenError`` naming the member that is wrong (never its value).
    init(json bytes: [UInt8], maximumSize: Int) throws(TokenError) {
        guard bytes.count <= maximumSize else {
            throw TokenError(.tokenFieldTooLarge, "The token is \(bytes.count) bytes, more than the \(maximumSize) accepted")
        }
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw TokenError(.malformedToken, "The token is not valid JSON (\(error.message) at byte \(error.offset) of \(bytes.count))")
        }
        guard let object = value.object else {
            throw TokenError(.malformedToken, "The token is \(value.typeName), not a JSON object")
        }
        let version = try Self.string("protocolVersion", in: object)
        guard version == Self.ecV2 else {
            let shown = version.utf8.count <= 32 ? version : String(version.prefix(32)) + "…"
            throw TokenError(.unsupportedVersion, "protocolVersion \(shown) is not supported: only ECv2 tokens are verified")
        }
        let signatureText = try Self.string("signature", in: object)
        guard let intermediate = object["intermediateSigningKey"] else {
            throw TokenError(.missingTokenField, "The token has no intermediateSigningKey")
        }
        guard let intermediateObject = intermediate.object else {
            throw TokenError(.malformedToken, "intermediateSigningKey is \(intermediate.typeName), not an object")
        }
        let signedKey = try Self.string("signedKey", in: intermediateObject, path: "intermediateSigningKey.")
        guard signedKey.utf8.count <= Self.maximumSignedKeySize else {
            throw TokenError(
                .tokenFieldTooLarge,
                "intermediateSigningKey.signedKey is \(signedKey.utf8.count) bytes, more than the \(Self.maximumSignedKeySize) accepted")
        }
        guard let signaturesValue = intermediateObject["signatures"] else {
            throw TokenError(.missingTokenField, "The token has no intermediateSigningKey.signatures")
        }
        guard let signatures = signaturesValue.array else {
            throw TokenError(.malformedToken, "intermediateSigningKey.signatures is \(signaturesValue.typeName), not an array")
        }
        guard !signatures.isEmpty else {
            throw TokenError(.missingTokenField, "intermediateSigningKey.signatures is empty")
        }
        guard signatures.count <= Self.maximumSignatures else {
            throw TokenError(
                .tokenFieldTooLarge,
                "intermediateSigningKey.signatures has \(signatures.count) entries, more than the \(Self.maximumSignatures) accepted")
        }
        var decodedSignatures: [[UInt8]] = []
        for (index, entry) in signatures.enumerated() {
            guard let text = entry.string else {
                throw TokenError(.malformedToken, "intermediateSigningKey.signatures[\(index)] is \(entry.typeName), not a string")
            }
            decodedSignatures.append(try Self.signatureBytes(text, name: "intermediateSigningKey.signatures[\(index)]"))
        }
        let signedMessage = try Self.string("signedMessage", in: object)
        guard signedMessage.utf8.count < maximumSize else {
            throw TokenError(.tokenFieldTooLarge, "signedMessage is \(signedMessage.utf8.count) bytes, more than the token size limit")
        }
        self.protocolVersion = version
        self.signature = try Self.signatureBytes(signatureText, name: "signature")
        self.signedKey = signedKey
        self.signedKeySignatures = decodedSignatures
        self.signedMessage = signedMessage
    }

    private static func string(_ name: String, in object: StrictJSON.Object, path: String = "") throws(TokenError) -> String {
        guard let value = object[name] else { throw TokenError(.missingTokenField, "The token has no \(path)\(name)") }
        guard let text = value.string else { throw TokenError(.malformedToken, "\(path)\(name) is \(value.typeName), not a string") }
        return text
    }

    private static func signatureBytes(_ text: String, name: String) throws(TokenError) -> [UInt8] {
        guard text.utf8.count <= (maximumSignatureSize / 3 + 1) * 4 else {
            throw TokenError(.tokenFieldTooLarge, "\(name) is \(text.utf8.count) characters, longer than any ECDSA P-256 signature")
        }
        guard let bytes = Base64.decodeStrict(text), !bytes.isEmpty else {
            throw TokenError(.invalidTokenEncoding, "\(name) is not base64 (standard alphabet, padded)")
        }
        return bytes
    }
}

/// Why a token could not be read: a reason code of `googlepay.token.structure` and a message that
/// names members, never their values.
struct TokenError: Error, CheckFailureDescribing {
    let reasonCode: ReasonCode
    let checkMessage: String
    var isOperational: Bool { false }

    init(_ reason: ReasonCode, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }
}
