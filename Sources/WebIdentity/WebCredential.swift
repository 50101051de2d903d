import Foundation
import VerificationCore
import WalletCBOR
import WalletEncoding

/// What a page received from `navigator.credentials.get` (a `DigitalCredential`), by the protocol
/// that answered.
public enum WebCredential: Sendable, Hashable {
    /// ISO/IEC 18013-7 Annex C: the EncryptedResponse `["dcapi", {enc, cipherText}]` (CBOR bytes).
    case annexC([UInt8])
    /// OpenID4VP 1.0 (`dc_api.jwt`): the protocol the wallet answered and the `response`, a JWE in
    /// compact serialization, as received.
    case openID4VP(WebRequestProtocol, response: String)

    /// The protocol that answered.
    public var `protocol`: WebRequestProtocol {
        switch self {
        case .annexC: return .annexC
        case .openID4VP(let answered, _): return answered
        }
    }

    /// Reads a credential from its parts: the protocol identifier and the `data` member's `response`
    /// text (base64url for Annex C, a compact JWE for OpenID4VP). Throws ``WebRequestError`` naming what is wrong.
    public init(protocol name: String, response: String) throws(WebRequestError) {
        guard let answered = WebRequestProtocol(rawValue: name) else {
            throw WebRequestError("the credential's protocol \"\(name)\" is not org-iso-mdoc, openid4vp-v1-signed or openid4vp-v1-unsigned")
        }
        switch answered {
        case .annexC:
            guard !response.isEmpty, response.utf8.allSatisfy({ Base64.isURLAlphabet($0) || $0 == UInt8(ascii: "=") }),
                let bytes = Base64.decodeLenient(response), !bytes.isEmpty
            else {
                throw WebRequestError("data.response of an org-iso-mdoc credential must be base64url")
            }
            self = .annexC(bytes)
        case .openID4VPSigned, .openID4VPUnsigned:
            // Five base64url parts separated by dots (RFC 7516 §7.1); the JWE itself is read by the verifier.
            guard Self.looksLikeCompactJWE(response) else {
                throw WebRequestError("data.response of an \(name) credential must be a JWE in compact serialization (five base64url parts)")
            }
            self = .openID4VP(answered, response: response)
        }
    }

    /// Reads what a page posts back or a file holds: the credential JSON `{"protocol", "data":
    /// {"response"}}` (a missing protocol means org-iso-mdoc, as before OpenID4VP), or for Annex C the
    /// base64url text alone or the binary CBOR, or for OpenID4VP the compact JWE alone.
    public static func fromSubmission(_ raw: [UInt8]) throws(WebRequestError) -> WebCredential {
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw WebRequestError("the credential is not valid JSON")
            }
            let name = object["protocol"] as? String ?? WebRequestProtocol.annexC.rawValue
            if name == WebRequestProtocol.annexC.rawValue {
                return .annexC(try DCAPIEncryptedResponse.responseBytes(fromSubmission: raw))
            }
            guard let data = object["data"] as? [String: Any], let response = data["response"] as? String else {
                throw WebRequestError("the credential JSON has no data.response")
            }
            return try WebCredential(protocol: name, response: response)
        }
        if looksLikeCompactJWE(text) {
            // A compact JWE without its protocol: the two OpenID4VP variants answer alike (sessions accept
            // either for the one they offered).
            return try WebCredential(protocol: WebRequestProtocol.openID4VPSigned.rawValue, response: text)
        }
        return .annexC(try DCAPIEncryptedResponse.responseBytes(fromSubmission: raw))
    }
}

extension WebCredential {
    /// Five parts of base64url characters separated by dots and nothing else: a compact JWE, never
    /// binary CBOR (which may hold dots) or Annex C's base64url (which holds none).
    public static func looksLikeCompactJWE(_ text: String) -> Bool {
        // Dots counted on the UTF-8 bytes: splitting the String would walk kilobytes grapheme by grapheme.
        text.utf8.allSatisfy { Base64.isURLAlphabet($0) || $0 == UInt8(ascii: ".") }
            && text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } == 4
    }
}

extension ReasonCode {
    /// For example: "The response came over openid4vp-v1-unsigned, which this request did not offer…"
    public static let protocolNotOffered: ReasonCode = "protocolNotOffered"
}
