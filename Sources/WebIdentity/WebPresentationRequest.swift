import Crypto
import Foundation
import Mdoc
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding

/// What a website asks for: one docType and its data elements, each with the intent to retain.
public struct WebDocumentRequest: Sendable, Hashable, Codable {
    /// One requested data element.
    public struct Element: Sendable, Hashable, Codable {
        /// The namespace of the element, such as `org.iso.18013.5.1`.
        public var nameSpace: String
        /// The data element identifier within the namespace.
        public var identifier: String
        /// ISO 18013-5 IntentToRetain: whether the verifier keeps the value after the transaction.
        public var intentToRetain: Bool

        /// Creates an element request; by default the verifier declares it will not retain the value.
        public init(nameSpace: String, identifier: String, intentToRetain: Bool = false) {
            self.nameSpace = nameSpace
            self.identifier = identifier
            self.intentToRetain = intentToRetain
        }

        /// Parses `NAMESPACE/IDENTIFIER[:retain]` (the namespace is everything before the first `/`). An
        /// identifier holds no `/` or `:`, so `:retain` is never part of one.
        public init(argument: String) throws(WebRequestError) {
            guard let slash = argument.firstIndex(of: "/") else {
                throw WebRequestError("\"\(argument)\" is not NAMESPACE/IDENTIFIER[:retain]")
            }
            let nameSpace = String(argument[..<slash])
            var identifier = String(argument[argument.index(after: slash)...])
            var retain = false
            if identifier.hasSuffix(":retain") {
                retain = true
                identifier.removeLast(":retain".count)
            }
            guard !nameSpace.isEmpty, !identifier.isEmpty, !identifier.contains("/"), !identifier.contains(":") else {
                throw WebRequestError("\"\(argument)\" is not NAMESPACE/IDENTIFIER[:retain]")
            }
            self.init(nameSpace: nameSpace, identifier: identifier, intentToRetain: retain)
        }
    }

    /// The one docType the website asks for.
    public var docType: String
    /// The requested elements, in request order.
    public var elements: [Element]

    /// Creates a request; call ``validate()`` before building a DeviceRequest from it.
    public init(docType: String, elements: [Element]) {
        self.docType = docType
        self.elements = elements
    }

    /// A name such as an OpenID4VP key id: 1 to 256 visible characters (no whitespace or control
    /// characters). A docType, namespace or element identifier is held to ``isIdentifier(_:)``.
    public static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256
            && text.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && $0.value >= 0x20 && !(0x7f...0x9f).contains($0.value) }
    }

    /// A docType, namespace or element identifier this verifier puts into a request it creates: the
    /// ISO/IEC 18013-5 data identifier form, printable ASCII (``DataIdentifier``).
    public static func isIdentifier(_ text: String) -> Bool { DataIdentifier.isValid(text) }

    /// Checks the docType and element names with ``isIdentifier(_:)``, and that there is at least one element and no duplicate.
    /// Throws ``WebRequestError`` naming the first problem found.
    public func validate() throws(WebRequestError) {
        guard !docType.isEmpty else { throw WebRequestError("the request names no docType") }
        guard Self.isIdentifier(docType) else { throw WebRequestError("the docType must be \(DataIdentifier.rule)") }
        guard !elements.isEmpty else { throw WebRequestError("the request names no element") }
        for element in elements where !Self.isIdentifier(element.nameSpace) || !Self.isIdentifier(element.identifier) {
            throw WebRequestError("namespaces and element identifiers must be \(DataIdentifier.rule)")
        }
        var seen = Set<String>()
        for element in elements where !seen.insert(element.nameSpace + "/" + element.identifier).inserted {
            throw WebRequestError("\(element.nameSpace)/\(element.identifier) is requested twice")
        }
    }

    /// `DeviceRequest = {"version": "1.0", "docRequests": [{"itemsRequest": #6.24(ItemsRequest)}]}`,
    /// `ItemsRequest = {"docType", "nameSpaces": {ns: {identifier: intentToRetain}}}` (ISO 18013-5 §8.3.2.1.2.1).
    /// With a reader signer and the request's session transcript, the request is signed (§9.1.4):
    /// a `readerAuth` in the DocRequest (version "1.0"), or with `readerAuthAll`, one signature for
    /// the whole request (version "1.1", ISO/IEC 18013-5 second edition); see ``ReaderAuthentication``.
    public func deviceRequest(readerAuth signer: ReaderAuthSigner?, transcript: SessionTranscript, readerAuthAll: Bool = false) throws -> CBORNode {
        let unsigned = try deviceRequest()
        guard let signer else { return unsigned }
        let request = try unsigned.map("DeviceRequest")
        let docRequest = try request.required("docRequests", in: "DeviceRequest").array("docRequests")[0]
        let items = try docRequest.map("DocRequest").required("itemsRequest", in: "DocRequest")
        if readerAuthAll {
            let signed = ReaderAuthentication.allBytes(transcript: transcript, itemsRequestBytes: [items.encodedBytes], deviceRequestInfoBytes: nil)
            return try CBORNode.map([
                "version": .text("1.1"), "docRequests": .array([docRequest]), "readerAuthAll": .array([try signer.sign(signed)]),
            ])
        }
        let signed = ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: items.encodedBytes)
        let signedRequest = try CBORNode.map(["itemsRequest": items, "readerAuth": try signer.sign(signed)])
        return try CBORNode.map(["version": .text("1.0"), "docRequests": .array([signedRequest])])
    }

    /// The unsigned DeviceRequest (version "1.0", one DocRequest, no readerAuth) of this request.
    public func deviceRequest() throws(CBORError) -> CBORNode {
        var spaces: [(String, [(CBORNode, CBORNode)])] = []
        for element in elements {
            if let index = spaces.firstIndex(where: { $0.0 == element.nameSpace }) {
                spaces[index].1.append((.text(element.identifier), .bool(element.intentToRetain)))
            } else {
                spaces.append((element.nameSpace, [(.text(element.identifier), .bool(element.intentToRetain))]))
            }
        }
        var nameSpaces: [(CBORNode, CBORNode)] = []
        for (name, items) in spaces { nameSpaces.append((.text(name), try CBORNode.map(items))) }
        let itemsRequest = try CBORNode.map(["docType": .text(docType), "nameSpaces": try CBORNode.map(nameSpaces)])
        let docRequest = try CBORNode.map(["itemsRequest": .embedded(itemsRequest)])
        return try CBORNode.map(["version": .text("1.0"), "docRequests": .array([docRequest])])
    }

    func allows(nameSpace: String, identifier: String) -> Bool {
        var cursor = 0
        return allows(nameSpace: nameSpace, identifier: identifier, from: &cursor)
    }

    /// ``allows(nameSpace:identifier:)`` for elements read in turn: a wallet usually returns them in
    /// the order they were requested, so the element at `cursor` is compared first (then the cursor
    /// moves past it) and the whole list only when it is not the one. The answer never depends on
    /// the cursor, only the number of comparisons does.
    func allows(nameSpace: String, identifier: String, from cursor: inout Int) -> Bool {
        if cursor < elements.count, elements[cursor].identifier == identifier, elements[cursor].nameSpace == nameSpace {
            cursor += 1
            return true
        }
        guard let index = elements.firstIndex(where: { $0.identifier == identifier && $0.nameSpace == nameSpace }) else { return false }
        cursor = index + 1
        return true
    }
}

/// A web request, origin, encryption info or response that cannot be used; the description says why.
public typealias WebRequestError = CodedError<WebRequestErrorDomain>

/// The domain of ``WebRequestError``: web requests, origins, encryption info and responses.
public enum WebRequestErrorDomain: ErrorDomain {
    /// `WebRequestError`.
    public static let name = "WebRequestError"
    /// ``ErrorCode/invalidRequest``.
    public static let defaultCode = ErrorCode.invalidRequest
}

/// ISO/IEC 18013-7 Annex C `EncryptionInfo = ["dcapi", {"nonce": bstr, "recipientPublicKey": COSE_Key}]`.
public struct DCAPIEncryptionInfo: Sendable {
    /// The nonce the verifier chose for this request; at least 16 bytes when decoded from a request.
    public let nonce: [UInt8]
    /// The verifier's HPKE recipient key the wallet encrypts the response to.
    public let recipientPublicKey: P256.KeyAgreement.PublicKey
    /// The encoded EncryptionInfo, as built or as received.
    public let bytes: [UInt8]

    /// The base64url text (no padding) that goes to the browser and into the session transcript.
    public var base64URL: String { Base64.encodeURL(bytes) }

    /// Builds the EncryptionInfo for a nonce and recipient key; throws when the key cannot be expressed as a COSE_Key.
    public init(nonce: [UInt8], recipientPublicKey: P256.KeyAgreement.PublicKey) throws {
        self.nonce = nonce
        self.recipientPublicKey = recipientPublicKey
        let key = COSEPublicKey.p256(try P256.Signing.PublicKey(x963Representation: recipientPublicKey.x963Representation)).coseKey()
        let parameters = try CBORNode.map(["nonce": .bytes(nonce), "recipientPublicKey": key])
        bytes = Array(CBORNode.array([.text("dcapi"), parameters]).encodedBytes)
    }

    /// Decodes the base64url text a request carried.
    public init(base64URL text: String) throws(WebRequestError) {
        guard let bytes = Base64.decodeURL(text) else { throw WebRequestError("the encryption info is not base64url text") }
        do {
            let items = try CBORDecoder.decode(bytes).array("EncryptionInfo")
            guard items.count == 2, items[0].textValue == "dcapi" else {
                throw WebRequestError("the encryption info is not [\"dcapi\", {nonce, recipientPublicKey}]")
            }
            let parameters = try items[1].map("EncryptionParameters")
            let nonce = Array(try parameters.required("nonce", in: "EncryptionParameters").bytes("nonce"))
            guard nonce.count >= 16 else { throw WebRequestError("the encryption info nonce is \(nonce.count) bytes; at least 16 are required") }
            let key = try COSEPublicKey(coseKey: try parameters.required("recipientPublicKey", in: "EncryptionParameters"))
            guard let agreement = key.p256KeyAgreementKey else {
                throw WebRequestError("the recipient public key is a \(key.curveName) key; Annex C uses P-256")
            }
            self.nonce = nonce
            self.recipientPublicKey = agreement
            self.bytes = bytes
        } catch let error as WebRequestError {
            throw error
        } catch let error as CBORError {
            throw WebRequestError("the encryption info does not decode: \(error.message.isEmpty ? error.code.rawValue : error.message)")
        } catch let error as COSEError {
            throw WebRequestError("the recipient public key is not usable: \(error.message)")
        } catch {
            throw WebRequestError("the encryption info does not decode")
        }
    }
}

/// What the page passes to `navigator.credentials.get` (W3C Digital Credentials API, protocol
/// `org-iso-mdoc`), and what verification needs later.
public struct WebPresentationRequest: Sendable {
    /// The docType and elements asked for.
    public let request: WebDocumentRequest
    /// The web origin of the page, as the browser reports it; part of the session transcript.
    public let origin: String
    /// The encoded DeviceRequest, signed when a reader signer was given.
    public let deviceRequest: [UInt8]
    /// The EncryptionInfo sent with the request.
    public let encryptionInfo: DCAPIEncryptionInfo

    /// `readerAuth` signs the DeviceRequest for this very request's transcript (the encryption info
    /// and the origin); `readerAuthAll` chooses one signature for the whole request (version "1.1").
    public init(
        request: WebDocumentRequest, origin: String, nonce: [UInt8], recipientPublicKey: P256.KeyAgreement.PublicKey,
        readerAuth: ReaderAuthSigner? = nil, readerAuthAll: Bool = false
    ) throws {
        try request.validate()
        self.request = request
        self.origin = origin
        let encryptionInfo = try DCAPIEncryptionInfo(nonce: nonce, recipientPublicKey: recipientPublicKey)
        self.encryptionInfo = encryptionInfo
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo.base64URL, origin: origin)
        self.deviceRequest = Array(
            try request.deviceRequest(readerAuth: readerAuth, transcript: transcript, readerAuthAll: readerAuthAll).encodedBytes)
    }

    /// `{"mediation": "required", "digital": {"requests": [{"protocol": "org-iso-mdoc",
    /// "data": {"deviceRequest": b64url, "encryptionInfo": b64url}}]}}`.
    public var navigatorCredentialsGetArgument: String {
        navigatorCredentialsGetArgument(offering: [.annexC], openID4VPRequest: nil)
    }

    /// The argument of `navigator.credentials.get` offering `protocols` in that order: this Annex C
    /// request for `org-iso-mdoc`, `openID4VPRequest` (a whole DC API request entry) for an OpenID4VP
    /// protocol. The request sessions and `web request` both write it here.
    public func navigatorCredentialsGetArgument(offering protocols: [WebRequestProtocol], openID4VPRequest: String?) -> String {
        var entries: [String] = []
        for offered in protocols {
            if offered == .annexC {
                entries.append(
                    #"{"protocol":"org-iso-mdoc","data":{"deviceRequest":"# + JSONText.quote(Base64.encodeURL(deviceRequest))
                        + #","encryptionInfo":"# + JSONText.quote(encryptionInfo.base64URL) + "}}")
            } else if let openID4VPRequest {
                entries.append(openID4VPRequest)
            }
        }
        return #"{"mediation":"required","digital":{"requests":["# + entries.joined(separator: ",") + "]}}"
    }

    /// The session transcript the wallet will use: `[null, null, ["dcapi", SHA-256(CBOR([base64url(EncryptionInfo), origin]))]]`.
    public var sessionTranscript: SessionTranscript {
        .dcapi(encryptionInfoBase64URL: encryptionInfo.base64URL, origin: origin)
    }
}

/// ISO/IEC 18013-7 Annex C `EncryptedResponse = ["dcapi", {"enc": bstr, "cipherText": bstr}]`.
public struct DCAPIEncryptedResponse: Sendable {
    /// The HPKE encapsulated key (an uncompressed P-256 point).
    public let enc: [UInt8]
    /// The AES-128-GCM ciphertext of the DeviceResponse.
    public let cipherText: [UInt8]

    /// Reads an EncryptedResponse; throws ``WebRequestError`` when it is not `["dcapi", {"enc", "cipherText"}]`.
    public init(cborBytes bytes: [UInt8]) throws(WebRequestError) {
        do {
            let items = try CBORDecoder.decode(bytes).array("EncryptedResponse")
            guard items.count == 2, items[0].textValue == "dcapi" else {
                throw WebRequestError("the response is not [\"dcapi\", {enc, cipherText}]")
            }
            let data = try items[1].map("EncryptedResponseData")
            enc = Array(try data.required("enc", in: "EncryptedResponseData").bytes("enc"))
            cipherText = Array(try data.required("cipherText", in: "EncryptedResponseData").bytes("cipherText"))
        } catch let error as WebRequestError {
            throw error
        } catch let error as CBORError {
            throw WebRequestError("the response does not decode: \(error.message.isEmpty ? error.code.rawValue : error.message)")
        } catch {
            throw WebRequestError("the response does not decode")
        }
    }

    /// The EncryptedResponse bytes from what a page posts back: the credential JSON
    /// `{"protocol": "org-iso-mdoc", "data": {"response": b64url}}`, the base64url text alone, or
    /// the binary CBOR.
    public static func responseBytes(fromSubmission raw: [UInt8]) throws(WebRequestError) -> [UInt8] {
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw WebRequestError("the response file is not valid JSON")
            }
            if let proto = object["protocol"] as? String, proto != "org-iso-mdoc" {
                throw WebRequestError("the credential's protocol is \"\(proto)\", not \"org-iso-mdoc\"")
            }
            let data = object["data"] as? [String: Any] ?? object
            guard let response = data["response"] as? String, let bytes = Base64.decodeURL(response) else {
                throw WebRequestError("the credential JSON has no base64url data.response")
            }
            return bytes
        }
        if !text.isEmpty, text.utf8.allSatisfy({ Base64.isURLAlphabet($0) }), let bytes = Base64.decodeURL(text),
            (try? CBORDecoder.decode(bytes)) != nil
        {
            return bytes
        }
        return raw
    }
}
