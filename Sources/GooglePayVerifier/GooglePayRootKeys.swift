import Crypto
import Foundation
import WalletEncoding
import WalletJSON

/// Google's root signing keys, as Google publishes them:
/// `{"keys": [{"keyValue": base64 DER SubjectPublicKeyInfo, "protocolVersion": "ECv2", "keyExpiration": "ms since the epoch"}]}`.
///
/// Parsed from the bytes of the list (fetching and caching it is the caller's business). Keys of
/// other protocol versions (ECv1, ECv2SigningOnly) are kept but never used for ECv2; an ECv2 key is
/// used only while its `keyExpiration` lies after the verification time.
public struct GooglePayRootKeys: Sendable, CustomStringConvertible {
    /// One key of the list.
    public struct Key: Sendable {
        /// The key's `protocolVersion`, as received (`ECv1`, `ECv2`, `ECv2SigningOnly`, ...).
        public let protocolVersion: String
        /// The public key (`keyValue`).
        public let publicKey: P256.Signing.PublicKey
        /// `keyExpiration`, when the list gives one. An ECv2 key without it is never used.
        public let expiration: Date?
        /// `keyValue` as received, for messages.
        public let keyValue: String

        /// Whether the key verifies ECv2 intermediate keys at `time`: protocolVersion ECv2 and an
        /// expiration after `time`.
        public func isUsableForECv2(at time: Date) -> Bool {
            guard protocolVersion == GooglePayToken.ecV2, let expiration else { return false }
            return expiration > time
        }
    }

    /// The keys, in the order of the list.
    public let keys: [Key]

    /// A list of these keys (tests build lists in code).
    public init(keys: [Key]) {
        self.keys = keys
    }

    /// The largest key list accepted (Google's holds a handful of keys).
    public static let maximumSize = 64 * 1024

    /// Parses Google's key list. Throws ``GooglePayRootKeysError`` for anything that is not such a
    /// list: not strict JSON, no `keys` array, a key without `keyValue` or `protocolVersion`, a
    /// `keyValue` that is not a P-256 SubjectPublicKeyInfo, or a `keyExpiration` that is not milliseconds.
    public static func parse(_ bytes: [UInt8]) throws(GooglePayRootKeysError) -> GooglePayRootKeys {
        guard bytes.count <= maximumSize else {
            throw GooglePayRootKeysError("the key list is \(bytes.count) bytes, more than the \(maximumSize) accepted")
        }
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw GooglePayRootKeysError("the key list is not valid JSON (\(error.message) at byte \(error.offset))")
        }
        guard let list = value.object?["keys"]?.array else {
            throw GooglePayRootKeysError("the key list is not a JSON object with a \"keys\" array")
        }
        var keys: [Key] = []
        for (index, entry) in list.enumerated() {
            guard let object = entry.object else { throw GooglePayRootKeysError("keys[\(index)] is \(entry.typeName), not an object") }
            guard let keyValue = object["keyValue"]?.string else {
                throw GooglePayRootKeysError("keys[\(index)] has no keyValue string")
            }
            guard let version = object["protocolVersion"]?.string else {
                throw GooglePayRootKeysError("keys[\(index)] has no protocolVersion string")
            }
            guard let der = Base64.decodeLenient(keyValue), let publicKey = try? P256.Signing.PublicKey(derRepresentation: der) else {
                throw GooglePayRootKeysError("keys[\(index)].keyValue is not base64 of a P-256 SubjectPublicKeyInfo")
            }
            var expiration: Date?
            if let member = object["keyExpiration"] {
                guard let text = member.string, let date = GooglePayTime.date(milliseconds: text) else {
                    throw GooglePayRootKeysError("keys[\(index)].keyExpiration is not a string of milliseconds since the epoch")
                }
                expiration = date
            }
            keys.append(Key(protocolVersion: version, publicKey: publicKey, expiration: expiration, keyValue: keyValue))
        }
        return GooglePayRootKeys(keys: keys)
    }

    /// The keys that verify ECv2 intermediate keys at `time`.
    public func usableForECv2(at time: Date) -> [Key] {
        keys.filter { $0.isUsableForECv2(at: time) }
    }

    /// The number of keys and their protocol versions; public keys only, so nothing secret.
    public var description: String {
        "GooglePayRootKeys(\(keys.count) keys: \(keys.map(\.protocolVersion).joined(separator: ", ")))"
    }
}

/// A root key list that cannot be read; the message says what is wrong with it.
public struct GooglePayRootKeysError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the list.
    public let message: String

    /// An error with this message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { "GooglePayRootKeysError: \(message)" }
}

/// Google's times: milliseconds since the epoch, written as a decimal string.
enum GooglePayTime {
    /// The instant `text` names: 1 to 16 ASCII digits (beyond the year 2200 is not a time Google writes).
    static func date(milliseconds text: String) -> Date? {
        let utf8 = text.utf8
        guard (1...16).contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else { return nil }
        return Date(timeIntervalSince1970: Double(value) / 1000)
    }

    /// `date` as milliseconds since the epoch, for messages.
    static func milliseconds(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}

extension Date {
    /// RFC 3339 in UTC, whole seconds (for messages).
    var rfc3339: String {
        RFC3339.format(Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)))
    }
}
