import Crypto
import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// The `version` of a payment token.
public enum ApplePayTokenVersion: String, Sendable, Hashable, CaseIterable {
    /// Elliptic-curve encryption (ECDH P-256, AES-256-GCM); ECDSA-signed.
    case ecV1 = "EC_v1"
    /// RSA key wrapping (RSA-OAEP SHA-256, AES-128-GCM); RSA-signed.
    case rsaV1 = "RSA_v1"
}

/// A payment token (`paymentData`) with every field decoded, but nothing verified yet.
///
/// The decoded bytes are the bytes that were received; the signature and the decryption use them
/// as they are.
public struct ApplePayToken: Sendable, Hashable {
    /// Which scheme encrypted and signed the token: EC_v1 or RSA_v1.
    public var version: ApplePayTokenVersion
    /// `data`, base64-decoded: ciphertext followed by the 16-byte GCM tag.
    public var data: [UInt8]
    /// `signature`, base64-decoded: a detached CMS SignedData (usually BER).
    public var signature: [UInt8]
    /// `header`, each field as received and decoded.
    public var header: Header
    /// `transactionIdentifier` of a whole PKPaymentToken, when one was given (not signed).
    public var outerTransactionIdentifier: String?
    /// `paymentMethod` of a whole PKPaymentToken (not signed): what the device says of the card.
    public var paymentMethod: PaymentMethod?

    /// PKPaymentMethod as a PKPaymentToken carries it: `displayName` ("Visa 0224"), `network`
    /// ("Visa"), `type` ("debit", "credit", "prepaid", "store"). Not signed: for display only.
    public struct PaymentMethod: Sendable, Hashable {
        /// A description of the card, suitable for display.
        public var displayName: String?
        /// The card's payment network.
        public var network: String?
        /// The kind of card, such as `debit` or `credit`.
        public var type: String?

        /// A payment method with these fields (nil: absent from the token).
        public init(displayName: String?, network: String?, type: String?) {
            self.displayName = displayName
            self.network = network
            self.type = type
        }
    }

    /// The token's `header`: the ephemeral or wrapped key, the merchant key's hash, the transaction id and applicationData.
    public struct Header: Sendable, Hashable {
        /// `ephemeralPublicKey` (EC_v1), base64-decoded: a SubjectPublicKeyInfo.
        public var ephemeralPublicKey: [UInt8]?
        /// `wrappedKey` (RSA_v1), base64-decoded.
        public var wrappedKey: [UInt8]?
        /// `publicKeyHash` as received (base64 of SHA-256 of the merchant certificate's SPKI).
        public var publicKeyHash: String
        /// `transactionId` as received (hex).
        public var transactionId: String
        /// `transactionId`, hex-decoded.
        public var transactionIdBytes: [UInt8]
        /// `applicationData` as received (hex), when present.
        public var applicationData: String?
        /// `applicationData`, hex-decoded.
        public var applicationDataBytes: [UInt8]?
    }

    /// SHA-256 of ``signedContent``, computed over the fields in place.
    var signedContentDigest: [UInt8] {
        var hasher = SHA256()
        func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        update(version == .ecV1 ? header.ephemeralPublicKey ?? [] : header.wrappedKey ?? [])
        update(data)
        update(header.transactionIdBytes)
        if let applicationData = header.applicationDataBytes { update(applicationData) }
        return Array(hasher.finalize())
    }

    /// The bytes the CMS signature covers: ephemeralPublicKey (EC_v1) or wrappedKey (RSA_v1) ‖ data ‖
    /// transactionId ‖ applicationData (when present), each decoded.
    public var signedContent: [UInt8] {
        var out: [UInt8] = []
        let keyPart = version == .ecV1 ? header.ephemeralPublicKey ?? [] : header.wrappedKey ?? []
        out.reserveCapacity(keyPart.count + data.count + header.transactionIdBytes.count + (header.applicationDataBytes?.count ?? 0))
        out += keyPart
        out += data
        out += header.transactionIdBytes
        if let applicationData = header.applicationDataBytes { out += applicationData }
        return out
    }
}

/// Why a token could not be read. Recorded as a failed `applepay.token.structure` check.
public struct ApplePayTokenError: Error, CheckFailureDescribing, Hashable, CustomStringConvertible {
    /// Why the token was rejected: one of the `applepay.token.structure` reason codes, such as ``ReasonCode/malformedJSON``.
    public var reasonCode: ReasonCode
    /// A message for people that names the field and what is wrong with it.
    public var checkMessage: String
    /// The field concerned, e.g. `header.transactionId`.
    public var field: String?

    /// An error with a reason code, a message for people and, when one field is at fault, its path.
    public init(_ reason: ReasonCode, _ message: String, field: String? = nil) {
        self.reasonCode = reason
        self.checkMessage = message
        self.field = field
    }

    /// The reason code and the message.
    public var description: String { "ApplePayTokenError.\(reasonCode): \(checkMessage)" }

    /// Errors are equal when their reason codes are; the message and the field are not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reasonCode == rhs.reasonCode }
    /// Hashes the reason code only, as `==` compares only it.
    public func hash(into hasher: inout Hasher) { hasher.combine(reasonCode) }
}

extension ApplePayToken {
    /// Largest token accepted (real tokens are 3–6 KB).
    public static let maximumInputSize = 256 * 1024

    /// Reads a `paymentData` JSON object, or a whole PKPaymentToken (`paymentData`, `paymentMethod`,
    /// `transactionIdentifier`). `paymentData` may also be given as a JSON string or as base64 of
    /// the JSON (what iOS apps often send).
    public init(json bytes: [UInt8]) throws(ApplePayTokenError) {
        try self.init(json: bytes, parsed: nil)
    }

    /// As ``init(json:)``, with the strict parse of `bytes` when the caller has it already (the HTTP
    /// service parses each request body once): `parsed` must be ``StrictJSON/parse(_:)`` of exactly
    /// these bytes. Only values are read from it, never byte ranges.
    public init(json bytes: [UInt8], parsed: StrictJSON.Object?) throws(ApplePayTokenError) {
        guard bytes.count <= Self.maximumInputSize else {
            throw ApplePayTokenError(.inputTooLarge, "The token is \(bytes.count) bytes; the limit is \(Self.maximumInputSize)")
        }
        // The usual token reads in place; anything else, and every error, the general way below.
        if parsed == nil, let usual = Self.readUsual(bytes) {
            self = usual
            return
        }
        let object: StrictJSON.Object
        if let parsed { object = parsed } else { object = try Self.jsonObject(bytes, what: "the token") }
        var paymentData = object
        var outerTransactionIdentifier: String?
        var paymentMethod: PaymentMethod?
        if object["version"] == nil, let inner = object["paymentData"] {
            // A whole PKPaymentToken.
            switch inner {
            case .object(let members):
                paymentData = members
            case .string(let text):
                if let members = try? Self.jsonObject(Array(text.utf8), what: "paymentData") {
                    paymentData = members
                } else if let decoded = Base64.decodeStrict(text), let members = try? Self.jsonObject(decoded, what: "paymentData") {
                    paymentData = members
                } else {
                    throw ApplePayTokenError(.malformedJSON, "paymentData is a string but neither JSON text nor base64 of JSON", field: "paymentData")
                }
            default:
                throw ApplePayTokenError(.malformedJSON, "paymentData is \(inner.typeName), not a JSON object", field: "paymentData")
            }
            if let identifier = object["transactionIdentifier"] {
                guard let text = identifier.string else {
                    throw ApplePayTokenError(.malformedJSON, "transactionIdentifier is not a string", field: "transactionIdentifier")
                }
                outerTransactionIdentifier = text
            }
            if let method = object["paymentMethod"] {
                guard let fields = method.object else {
                    throw ApplePayTokenError(.malformedJSON, "paymentMethod is \(method.typeName), not a JSON object", field: "paymentMethod")
                }
                func text(_ name: String) throws(ApplePayTokenError) -> String? {
                    guard let value = fields[name], value != .null else { return nil }
                    guard let string = value.string else {
                        throw ApplePayTokenError(
                            .malformedJSON, "paymentMethod.\(name) is \(value.typeName), not a string", field: "paymentMethod.\(name)")
                    }
                    return string
                }
                paymentMethod = PaymentMethod(displayName: try text("displayName"), network: try text("network"), type: try text("type"))
            }
        } else if object["version"] == nil {
            throw ApplePayTokenError(
                .missingField, "The JSON object has neither `version` (a paymentData object) nor `paymentData` (a PKPaymentToken)", field: "version")
        }

        let versionText = try Self.string(paymentData, "version", path: "version")
        guard let version = ApplePayTokenVersion(rawValue: versionText) else {
            throw ApplePayTokenError(
                .unsupportedVersion, "version \(Self.quoted(versionText)) is not supported; expected EC_v1 or RSA_v1", field: "version")
        }
        let data = try Self.base64(paymentData, "data", path: "data")
        guard data.count >= 16 else {
            throw ApplePayTokenError(.invalidBase64, "data is \(data.count) bytes, shorter than the 16-byte GCM tag", field: "data")
        }
        let signature = try Self.base64(paymentData, "signature", path: "signature")
        guard let headerValue = paymentData["header"] else {
            throw ApplePayTokenError(.missingField, "header is missing", field: "header")
        }
        guard let header = headerValue.object else {
            throw ApplePayTokenError(.malformedJSON, "header is \(headerValue.typeName), not a JSON object", field: "header")
        }

        var ephemeralPublicKey: [UInt8]?
        var wrappedKey: [UInt8]?
        switch version {
        case .ecV1:
            ephemeralPublicKey = try Self.base64(header, "ephemeralPublicKey", path: "header.ephemeralPublicKey")
            if header["wrappedKey"] != nil {
                throw ApplePayTokenError(.unexpectedField, "An EC_v1 header must not carry wrappedKey", field: "header.wrappedKey")
            }
        case .rsaV1:
            wrappedKey = try Self.base64(header, "wrappedKey", path: "header.wrappedKey")
            if header["ephemeralPublicKey"] != nil {
                throw ApplePayTokenError(.unexpectedField, "An RSA_v1 header must not carry ephemeralPublicKey", field: "header.ephemeralPublicKey")
            }
        }

        let publicKeyHash = try Self.string(header, "publicKeyHash", path: "header.publicKeyHash")
        guard let hashBytes = Base64.decodeStrict(publicKeyHash) else {
            throw ApplePayTokenError(.invalidBase64, "header.publicKeyHash is not base64", field: "header.publicKeyHash")
        }
        guard hashBytes.count == 32 else {
            throw ApplePayTokenError(
                .invalidBase64, "header.publicKeyHash decodes to \(hashBytes.count) bytes; a SHA-256 hash has 32", field: "header.publicKeyHash")
        }

        let transactionId = try Self.string(header, "transactionId", path: "header.transactionId")
        guard let transactionIdBytes = Hex.decodeStrict(transactionId), !transactionIdBytes.isEmpty else {
            throw ApplePayTokenError(.invalidHex, "header.transactionId is not hex text", field: "header.transactionId")
        }

        var applicationData: String?
        var applicationDataBytes: [UInt8]?
        if let value = header["applicationData"], value != .null {
            guard let text = value.string else {
                throw ApplePayTokenError(.malformedJSON, "header.applicationData is \(value.typeName), not a string", field: "header.applicationData")
            }
            guard let decoded = Hex.decodeStrict(text) else {
                throw ApplePayTokenError(.invalidHex, "header.applicationData is not hex text", field: "header.applicationData")
            }
            applicationData = text
            applicationDataBytes = decoded
        }

        self.version = version
        self.data = data
        self.signature = signature
        self.header = Header(
            ephemeralPublicKey: ephemeralPublicKey,
            wrappedKey: wrappedKey,
            publicKeyHash: publicKeyHash,
            transactionId: transactionId,
            transactionIdBytes: transactionIdBytes,
            applicationData: applicationData,
            applicationDataBytes: applicationDataBytes
        )
        self.outerTransactionIdentifier = outerTransactionIdentifier
        self.paymentMethod = paymentMethod
    }

    private static func jsonObject(_ bytes: [UInt8], what: String) throws(ApplePayTokenError) -> StrictJSON.Object {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw ApplePayTokenError(.malformedJSON, "\(what) is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard let object = value.object else {
            throw ApplePayTokenError(.malformedJSON, "\(what) is \(value.typeName), not a JSON object")
        }
        return object
    }

    private static func string(_ object: StrictJSON.Object, _ key: String, path: String) throws(ApplePayTokenError) -> String {
        guard let value = object[key] else {
            throw ApplePayTokenError(.missingField, "\(path) is missing", field: path)
        }
        guard let text = value.string else {
            throw ApplePayTokenError(.malformedJSON, "\(path) is \(value.typeName), not a string", field: path)
        }
        return text
    }

    private static func base64(_ object: StrictJSON.Object, _ key: String, path: String) throws(ApplePayTokenError) -> [UInt8] {
        let text = try string(object, key, path: path)
        guard let bytes = Base64.decodeStrict(text) else {
            throw ApplePayTokenError(.invalidBase64, "\(path) is not base64 (\(text.utf8.count) characters)", field: path)
        }
        return bytes
    }

    static func quoted(_ text: String) -> String {
        let prefix = text.prefix(40)
        let cleaned = String(prefix.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
        return "\"" + cleaned + (text.count > 40 ? "…" : "") + "\""
    }
}
