import Crypto
import Foundation
import Mdoc
import WalletCBOR

/// Builds APPLE-HPKE-v1 envelopes the way Wallet does, for the in-app flow's negative paths.
public struct IdentityEnvelopeFixture: Sendable {
    /// The envelope's `algorithm` string; change it to test rejection of other algorithms.
    public var algorithm = "APPLE-HPKE-v1"
    /// The HPKE `mode` in `params` (0 is base mode); change it to test rejection of other modes.
    public var mode: UInt64 = 0
    /// Replace infoHash with this value.
    public var infoHashOverride: [UInt8]?
    /// Plaintext wrapper key ("identity").
    public var topicKey = "identity"

    /// A builder of well-formed envelopes; change its properties to break one field.
    public init() {}

    /// The SessionTranscript of Apple's in-app flow for this nonce, merchant and team, bound to the SHA-256 of `recipient`.
    public static func transcript(nonce: [UInt8], merchantID: String, teamID: String, recipient: P256.KeyAgreement.PublicKey) -> SessionTranscript {
        SessionTranscript.appleInApp(
            nonce: nonce, merchantID: merchantID, teamID: teamID, recipientKeyHash: Array(SHA256.hash(data: recipient.x963Representation)))
    }

    /// Encrypts `{"identity": deviceResponse}` (the DeviceResponse bytes spliced in as they are).
    public func envelope(deviceResponse: [UInt8], recipient: P256.KeyAgreement.PublicKey, nonce: [UInt8], merchantID: String, teamID: String) throws
        -> [UInt8]
    {
        let responseNode = try CBORDecoder.decode(deviceResponse)
        let plaintext = Array(try CBORNode.map([(.text(topicKey), responseNode)]).encodedBytes)
        return try envelope(plaintext: plaintext, recipient: recipient, nonce: nonce, merchantID: merchantID, teamID: teamID)
    }

    /// Encrypts the given plaintext to `recipient` and wraps it in the CBOR envelope (algorithm, params, data).
    /// The HPKE info is the session transcript; base mode, P-256/HKDF-SHA256/AES-128-GCM.
    public func envelope(plaintext: [UInt8], recipient: P256.KeyAgreement.PublicKey, nonce: [UInt8], merchantID: String, teamID: String) throws
        -> [UInt8]
    {
        let transcript = Self.transcript(nonce: nonce, merchantID: merchantID, teamID: teamID, recipient: recipient)
        let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
        var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: suite, info: Data(transcript.bytes))
        let ciphertext = try sender.seal(plaintext, authenticating: Data())
        let node = try CBORNode.map([
            "algorithm": .text(algorithm),
            "params": try .map([
                "mode": .unsigned(mode),
                "pkEm": .bytes(sender.encapsulatedKey),
                "pkRHash": .bytes(Array(SHA256.hash(data: recipient.x963Representation))),
                "infoHash": .bytes(infoHashOverride ?? Array(SHA256.hash(data: transcript.bytes))),
            ]),
            "data": .bytes(ciphertext),
        ])
        return Array(node.encodedBytes)
    }
}
