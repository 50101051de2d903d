import Crypto
import Synchronization
import WalletCBOR

/// ISO 18013-5 §9.1.5.1 SessionTranscript = `[DeviceEngagementBytes, EReaderKeyBytes, Handover]`, with
/// the handover variants used by Apple's in-app flow, ISO 18013-7 and OpenID4VP.
///
/// ``encodedBytes`` is the array's encoding (what goes into DeviceAuthentication), ``node`` the array
/// as a node; ``taggedBytes`` is `SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)` (the
/// MAC key salt is its SHA-256).
/// A transcript supplied as bytes keeps those bytes; a built one is encoded once, deterministically.
public struct SessionTranscript: Sendable {
    /// The encoded SessionTranscript array, which goes into DeviceAuthentication unchanged: the bytes
    /// received, or the deterministic encoding of a built transcript.
    public let encodedBytes: ArraySlice<UInt8>
    /// `SessionTranscriptBytes`, `#6.24(bstr .cbor SessionTranscript)`, whose SHA-256 salts the deviceMac key derivation.
    public let taggedBytes: [UInt8]
    private let decoded: DecodedNode

    /// The SessionTranscript array as a node. A transcript a flow writes for each verification (the
    /// in-app and OpenID4VP ones) is decoded from ``encodedBytes`` the first time this is asked for:
    /// the verifier reads the bytes only.
    public var node: CBORNode { decoded.node(encodedBytes) }

    /// The encoded array (the HPKE `info` of Apple's and the Annex C flows).
    public var bytes: [UInt8] { Array(encodedBytes) }

    init(node: CBORNode, taggedBytes: [UInt8]? = nil) {
        self.encodedBytes = node.encodedBytes
        self.taggedBytes = taggedBytes ?? Array(CBORNode.embedded(node).encodedBytes)
        self.decoded = DecodedNode(.decoded(node))
    }

    /// A transcript written as `body` (see ``written(_:reference:)``), its node decoded on first use.
    private init(written body: [UInt8], taggedBytes: [UInt8], reference: @escaping @Sendable () -> SessionTranscript) {
        self.encodedBytes = body[...]
        self.taggedBytes = taggedBytes
        self.decoded = DecodedNode(.pending(reference))
    }

    /// ``node`` once decoded, shared by every copy (safe from several tasks at once).
    private final class DecodedNode: Sendable {
        enum State {
            case decoded(CBORNode)
            /// Not decoded yet; the node-built transcript should the written bytes ever not decode.
            case pending(@Sendable () -> SessionTranscript)
        }
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }

        func node(_ bytes: ArraySlice<UInt8>) -> CBORNode {
            state.withLock { state in
                switch state {
                case .decoded(let node):
                    return node
                case .pending(let reference):
                    let node = (try? CBORDecoder.decode(bytes)) ?? reference().node
                    state = .decoded(node)
                    return node
                }
            }
        }
    }

    /// A transcript supplied by the caller (proximity flows, ISO terminals): either the bare array or
    /// `#6.24(bstr .cbor SessionTranscript)`. Received bytes are kept.
    public init(bytes: [UInt8]) throws(MdocDecodingError) {
        let outer = try decoding("SessionTranscript") { () throws(CBORError) in try CBORDecoder.decode(bytes) }
        if case .tagged(24, _) = outer.value {
            let embedded = try decoding("SessionTranscriptBytes") { () throws(CBORError) in try EmbeddedCBOR<CBORNode>(cbor: outer) }
            _ = try decoding("SessionTranscript") { () throws(CBORError) in try embedded.value.array("SessionTranscript") }
            self.init(node: embedded.value, taggedBytes: bytes)
        } else {
            let items = try decoding("SessionTranscript") { () throws(CBORError) in try outer.array("SessionTranscript") }
            guard items.count == 3 else {
                throw MdocDecodingError(
                    .malformedStructure, "SessionTranscript must be an array of three items, found \(items.count)")
            }
            self.init(node: outer)
        }
    }

    /// This transcript as `SessionTranscriptBytes` (`#6.24(bstr .cbor SessionTranscript)`) in place of the
    /// array: what a wallet that embeds the tagged form in DeviceAuthentication signs over.
    public var tagWrapped: SessionTranscript {
        SessionTranscript(node: CBORNode.embedded(node))
    }

    static func sha256(_ node: CBORNode) -> CBORNode {
        .bytes(Array(SHA256.hash(data: Array(node.encodedBytes))))
    }

    /// Apple Verify with Wallet in-app:
    /// `[null, null, ["AppleIdentityPresentment_1.0", nonce, merchantID, teamID, pkRHash]]`.
    public static func appleInApp(nonce: [UInt8], merchantID: String, teamID: String, recipientKeyHash: [UInt8]) -> SessionTranscript {
        // Written directly (every in-app verification builds its transcript): the bytes of
        // ``builtAppleInApp(nonce:merchantID:teamID:recipientKeyHash:)``.
        var body: [UInt8] = [0x83, 0xf6, 0xf6, 0x85]
        body.reserveCapacity(
            4 + CBORWriter.stringLength(appleHandoverName.utf8.count) + CBORWriter.stringLength(nonce.count)
                + CBORWriter.stringLength(merchantID.utf8.count) + CBORWriter.stringLength(teamID.utf8.count)
                + CBORWriter.stringLength(recipientKeyHash.count))
        CBORWriter.appendText(appleHandoverName, to: &body)
        CBORWriter.appendBytes(nonce, to: &body)
        CBORWriter.appendText(merchantID, to: &body)
        CBORWriter.appendText(teamID, to: &body)
        CBORWriter.appendBytes(recipientKeyHash, to: &body)
        return written(body) { builtAppleInApp(nonce: nonce, merchantID: merchantID, teamID: teamID, recipientKeyHash: recipientKeyHash) }
    }

    /// The in-app handover's name, the first item of its handover array.
    static let appleHandoverName = "AppleIdentityPresentment_1.0"

    /// ``appleInApp(nonce:merchantID:teamID:recipientKeyHash:)`` built from nodes: the reference the
    /// written bytes are tested against.
    static func builtAppleInApp(nonce: [UInt8], merchantID: String, teamID: String, recipientKeyHash: [UInt8]) -> SessionTranscript {
        let handover = CBORNode.array([
            .text(appleHandoverName), .bytes(nonce), .text(merchantID), .text(teamID), .bytes(recipientKeyHash),
        ])
        return SessionTranscript(node: .array([.null, .null, handover]))
    }

    /// A transcript from the encoding `body` written here (text and byte strings of Strings' UTF-8
    /// and of bytes, which always decode), with its SessionTranscriptBytes written around it; the
    /// node-built `reference` should the encoding ever not decode.
    static func written(_ body: [UInt8], reference: @escaping @Sendable () -> SessionTranscript) -> SessionTranscript {
        var tagged: [UInt8] = [0xd8, 0x18]
        tagged.reserveCapacity(2 + CBORWriter.stringLength(body.count))
        CBORWriter.appendBytes(body, to: &tagged)
        // The node is decoded only when asked for (a verification reads the bytes): every
        // verification writes its transcript, and the node tree was most of what that cost.
        return SessionTranscript(written: body, taggedBytes: tagged, reference: reference)
    }

    /// ISO/IEC 18013-7 Annex C (W3C Digital Credentials API, protocol `org-iso-mdoc`):
    /// `[null, null, ["dcapi", SHA-256(CBOR([base64url(EncryptionInfo), origin]))]]`.
    public static func dcapi(encryptionInfoBase64URL: String, origin: String) -> SessionTranscript {
        let info = CBORNode.array([.text(encryptionInfoBase64URL), .text(origin)])
        return SessionTranscript(node: .array([.null, .null, .array([.text("dcapi"), sha256(info)])]))
    }

    /// OpenID4VP 1.0 (redirect / direct_post):
    /// `[null, null, ["OpenID4VPHandover", SHA-256(CBOR([clientID, nonce, jwkThumbprint / null, responseURI]))]]`.
    public static func openID4VP(clientID: String, nonce: String, jwkThumbprint: [UInt8]?, responseURI: String) -> SessionTranscript {
        let info = CBORNode.array([.text(clientID), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null, .text(responseURI)])
        return SessionTranscript(node: .array([.null, .null, .array([.text("OpenID4VPHandover"), sha256(info)])]))
    }

    /// OpenID4VP over the Digital Credentials API, draft 24:
    /// `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR([origin, clientID, nonce]))]]`, where
    /// an unsigned request's client id is `"web-origin:" + origin`.
    public static func openID4VPDigitalCredentialsDraft24(origin: String, clientID: String? = nil, nonce: String) -> SessionTranscript {
        let info = CBORNode.array([.text(origin), .text(clientID ?? "web-origin:" + origin), .text(nonce)])
        return SessionTranscript(node: .array([.null, .null, .array([.text("OpenID4VPDCAPIHandover"), sha256(info)])]))
    }

    /// ISO/IEC 18013-7 (2024) Annex B / OpenID4VP draft 18:
    /// `[null, null, [SHA-256(CBOR([clientID, mdocGeneratedNonce])), SHA-256(CBOR([responseURI, mdocGeneratedNonce])), nonce]]`.
    public static func oid4vpDraft18(clientID: String, responseURI: String, nonce: String, mdocGeneratedNonce: String) -> SessionTranscript {
        let clientHash = sha256(.array([.text(clientID), .text(mdocGeneratedNonce)]))
        let responseHash = sha256(.array([.text(responseURI), .text(mdocGeneratedNonce)]))
        return SessionTranscript(node: .array([.null, .null, .array([clientHash, responseHash, .text(nonce)])]))
    }
}

/// ISO 18013-5 §9.1.3.4 DeviceAuthentication =
/// `["DeviceAuthentication", SessionTranscript, DocType, DeviceNameSpacesBytes]`, signed or MACed as
/// `DeviceAuthenticationBytes = #6.24(bstr .cbor DeviceAuthentication)` (detached payload).
public enum DeviceAuthentication {
    /// The detached payload for the device signature or MAC. The transcript and the
    /// DeviceNameSpacesBytes go in exactly as received.
    public static func bytes(transcript: SessionTranscript, docType: String, deviceNameSpacesBytes: CBORNode) -> [UInt8] {
        // Written directly: the same bytes as CBORNode.embedded(CBORNode.array([.text("DeviceAuthentication"),
        // transcript.node, .text(docType), deviceNameSpacesBytes])), without the intermediate copies.
        let transcriptBytes = transcript.encodedBytes
        let nameSpacesBytes = deviceNameSpacesBytes.encodedBytes
        let innerLength =
            1 + CBORWriter.stringLength(20) + transcriptBytes.count + CBORWriter.stringLength(docType.utf8.count) + nameSpacesBytes.count
        var out: [UInt8] = []
        out.reserveCapacity(2 + CBORWriter.headLength(UInt64(innerLength)) + innerLength)
        CBORWriter.appendHead(major: 6, argument: 24, to: &out)
        CBORWriter.appendHead(major: 2, argument: UInt64(innerLength), to: &out)
        CBORWriter.appendHead(major: 4, argument: 4, to: &out)
        CBORWriter.appendText("DeviceAuthentication", to: &out)
        out.append(contentsOf: transcriptBytes)
        CBORWriter.appendText(docType, to: &out)
        out.append(contentsOf: nameSpacesBytes)
        return out
    }
}
