import Foundation
import VerificationCore
import WalletEncoding
import WalletJOSE
import WalletJSON

/// Why an OpenID4VP response was refused: the reason code its check reports and a message that
/// says what was wrong and what to do.
public struct OpenID4VPResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason code of `web.openid4vp.response` or `web.openid4vp.credentials`.
    public var reason: ReasonCode
    /// What was wrong and what to do, as a sentence. Never key material, nonces or element values.
    public var message: String

    /// An error of a reason with a message.
    public init(_ reason: ReasonCode, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The reason and the message.
    public var description: String { "\(reason): \(message)" }
}

/// Reading what a page posts back for an OpenID4VP request (OpenID4VP 1.0 Appendix A.4, §8.3):
/// the `response` JWE, and the `vp_token` of its decrypted payload.
public enum OpenID4VPResponse {
    /// One `vp_token` member: a credential query id and its presentations (DeviceResponse bytes).
    public struct Entry: Sendable, Hashable {
        /// The credential query id.
        public let id: String
        /// The base64url-decoded presentations, in order.
        public let presentations: [[UInt8]]
    }

    /// The largest submission read: a maximal JWE and its JSON wrapping.
    public static let maximumSubmissionLength = JWE.maximumCompactLength + 4096
    /// The most presentations a `vp_token` may hold in all.
    public static let maximumPresentations = 16

    /// The compact JWE from a submission: the DC API `data` (`{"response": "<JWE>"}`), the whole
    /// credential (`{"protocol": "openid4vp-v1-…", "data": {…}}`), or the JWE text alone. A `data`
    /// holding `{"error": …}` (the wallet's OpenID4VP error) is refused with ``ReasonCode/walletError``;
    /// a credential naming another protocol than `expected` with ``ReasonCode/malformedResponse``.
    public static func jweText(fromSubmission raw: [UInt8], expected: OpenID4VPProtocol? = nil) throws(OpenID4VPResponseError) -> String {
        guard raw.count <= maximumSubmissionLength else {
            throw OpenID4VPResponseError(.malformedResponse, "The submission is larger than \(maximumSubmissionLength) bytes.")
        }
        var start = 0
        while start < raw.count, [0x20, 0x09, 0x0A, 0x0D].contains(raw[start]) { start += 1 }
        guard start < raw.count else { throw OpenID4VPResponseError(.malformedResponse, "The submission is empty; post the credential's data.") }
        guard raw[start] == UInt8(ascii: "{") else {
            let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.allSatisfy({ Base64.isURLAlphabet($0) || $0 == UInt8(ascii: ".") }), text.utf8.contains(UInt8(ascii: ".")) else {
                throw OpenID4VPResponseError(
                    .malformedResponse,
                    "The submission is neither JSON ({\"response\": \"<JWE>\"}) nor a compact JWE; post the DigitalCredential's data as the page received it."
                )
            }
            return text
        }
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(raw) } catch {
            throw OpenID4VPResponseError(.malformedResponse, "The submission is not strict JSON (\(error)); duplicate members are refused.")
        }
        guard var object = value.object else { throw OpenID4VPResponseError(.malformedResponse, "The submission is not a JSON object.") }
        if let protocolValue = object["protocol"] {
            guard let name = protocolValue.string else {
                throw OpenID4VPResponseError(.malformedResponse, "The credential's protocol is not a string.")
            }
            guard let received = OpenID4VPProtocol(rawValue: name) else {
                throw OpenID4VPResponseError(
                    .malformedResponse,
                    "The credential's protocol is \"\(printable(name))\", not an OpenID4VP one (\(OpenID4VPProtocol.allCases.map(\.rawValue).joined(separator: ", ")))."
                )
            }
            if let expected, received != expected {
                throw OpenID4VPResponseError(
                    .malformedResponse, "The credential answers \(received.rawValue), but this request was offered as \(expected.rawValue).")
            }
        }
        if let data = object["data"] {
            guard let inner = data.object else { throw OpenID4VPResponseError(.malformedResponse, "The credential's data is not a JSON object.") }
            object = inner
        }
        if let error = object["error"] {
            let code = error.string.map(printable) ?? "?"
            throw OpenID4VPResponseError(
                .walletError,
                "The wallet answered with the OpenID4VP error \"\(code)\" instead of a response (for example invalid_request: it refused the request)."
            )
        }
        guard let response = object["response"] else {
            throw OpenID4VPResponseError(
                .malformedResponse,
                "The data has no response member; with response_mode dc_api.jwt the wallet returns {\"response\": \"<JWE>\"}.")
        }
        guard let text = response.string else {
            throw OpenID4VPResponseError(.malformedResponse, "The response member is \(response.typeName), not a compact JWE string.")
        }
        return text
    }

    /// The `vp_token` of a decrypted payload: a JSON object whose `vp_token` maps each credential
    /// query id to a non-empty list of base64url DeviceResponses (at most ``maximumPresentations`` in all).
    public static func vpToken(payload: [UInt8]) throws(OpenID4VPResponseError) -> [Entry] {
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(payload) } catch {
            throw OpenID4VPResponseError(.malformedVPToken, "The decrypted payload is not strict JSON (\(error)).")
        }
        guard let object = value.object else {
            throw OpenID4VPResponseError(.malformedVPToken, "The decrypted payload is \(value.typeName), not a JSON object.")
        }
        guard let token = object["vp_token"] else { throw OpenID4VPResponseError(.malformedVPToken, "The decrypted payload has no vp_token.") }
        guard let members = token.object, members.count > 0 else {
            throw OpenID4VPResponseError(
                .malformedVPToken,
                "The vp_token is \(token.typeName == "an object" ? "an empty object" : token.typeName); it must map credential ids to lists of presentations."
            )
        }
        var entries: [Entry] = []
        var total = 0
        for (id, list) in members.members {
            guard let items = list.array, !items.isEmpty else {
                throw OpenID4VPResponseError(.malformedVPToken, "The vp_token member \"\(printable(id))\" is not a non-empty array of presentations.")
            }
            total += items.count
            guard total <= maximumPresentations else {
                throw OpenID4VPResponseError(.malformedVPToken, "The vp_token holds more than \(maximumPresentations) presentations.")
            }
            var presentations: [[UInt8]] = []
            for (index, item) in items.enumerated() {
                guard var text = item.string, !text.isEmpty, let bytes = text.withUTF8({ Base64.decodeURLUnpadded($0) }) else {
                    throw OpenID4VPResponseError(
                        .malformedVPToken,
                        "vp_token.\(printable(id))[\(index)] is not a base64url string (an mso_mdoc presentation is a base64url DeviceResponse, no padding)."
                    )
                }
                presentations.append(bytes)
            }
            entries.append(Entry(id: id, presentations: presentations))
        }
        return entries
    }

    /// Text from the input for a message: at most 40 printable ASCII characters.
    static func printable(_ text: String) -> String {
        // Short printable ASCII without a quote (a credential query id, a kid) is its own printable
        // form: returned as it is, without rebuilding it character by character.
        let utf8 = text.utf8
        if utf8.count <= 40, utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) { return text }
        return String(text.unicodeScalars.prefix(40).map { $0.value >= 0x20 && $0.value < 0x7f && $0 != "\"" ? Character($0) : "?" })
    }
}
