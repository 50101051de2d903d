import Testing
import WalletCBOR

@testable import Mdoc

/// DeviceAuthenticationBytes are written directly; they must equal the tag-24 wrapped array built
/// from nodes, for every head width.
@Suite struct DeviceAuthenticationBytesTests {
    @Test(arguments: [0, 5, 23, 24, 255, 256, 70_000])
    func directBytesEqualTheNodeBuiltStructure(_ size: Int) throws {
        let transcript = SessionTranscript.appleInApp(
            nonce: Array(repeating: 1, count: 32), merchantID: String(repeating: "m", count: size),
            teamID: "t", recipientKeyHash: Array(repeating: 2, count: 32))
        let docType = String(repeating: "d", count: size)
        let nameSpaces = CBORNode.embedded(try CBORNode.map(["org.iso.18013.5.1": try CBORNode.map(["x": .bytes(Array(repeating: 7, count: size))])]))
        let expected = CBORNode.embedded(.array([.text("DeviceAuthentication"), transcript.node, .text(docType), nameSpaces])).encodedBytes
        #expect(DeviceAuthentication.bytes(transcript: transcript, docType: docType, deviceNameSpacesBytes: nameSpaces) == Array(expected))
    }
}

/// The OpenID4VP transcript is written directly; it must equal the one built from nodes (node,
/// encoding and SessionTranscriptBytes) for every string head width, non-ASCII text and no thumbprint.
@Suite struct OpenID4VPTranscriptBytesTests {
    @Test(arguments: [0, 5, 23, 24, 255, 256, 70_000])
    func writtenTranscriptEqualsTheNodeBuiltOne(_ size: Int) throws {
        let origins = ["https://verifier.example", "https://bücher.example:8443", String(repeating: "o", count: size)]
        for origin in origins {
            for thumbprint in [Array(repeating: UInt8(size % 251), count: 32), nil] as [[UInt8]?] {
                let nonce = String(repeating: "n", count: size) + "é"
                let written = SessionTranscript.openID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
                let built = SessionTranscript.builtOpenID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
                // The bytes the verifier reads, before anything decodes the written transcript's node.
                #expect(Array(written.encodedBytes) == Array(built.encodedBytes))
                #expect(written.node == built.node)
                #expect(written.node.encodedBytes == written.encodedBytes)
                #expect(Array(written.node.encodedBytes) == Array(built.node.encodedBytes))
                #expect(written.taggedBytes == built.taggedBytes)
                #expect(try CBORDecoder.decode(written.taggedBytes) == CBORNode.embedded(built.node))
            }
        }
    }
}

/// The in-app transcript is written directly; it must equal the one built from nodes.
@Suite struct AppleInAppTranscriptBytesTests {
    @Test(arguments: [0, 5, 23, 24, 255, 256, 70_000])
    func writtenTranscriptEqualsTheNodeBuiltOne(_ size: Int) throws {
        for merchantID in ["merchant.com.example", "händler.example", String(repeating: "m", count: size)] {
            let nonce = [UInt8](repeating: UInt8(size % 256), count: size)
            let keyHash = [UInt8](repeating: 9, count: 32)
            let written = SessionTranscript.appleInApp(nonce: nonce, merchantID: merchantID, teamID: "TEAM" + String(size), recipientKeyHash: keyHash)
            let built = SessionTranscript.builtAppleInApp(
                nonce: nonce, merchantID: merchantID, teamID: "TEAM" + String(size), recipientKeyHash: keyHash)
            // The bytes the verifier reads, before anything decodes the written transcript's node;
            // a copy shares the node decoded once.
            #expect(Array(written.encodedBytes) == Array(built.encodedBytes))
            let copy = written
            #expect(written.node == built.node)
            #expect(copy.node == built.node)
            #expect(Array(written.node.encodedBytes) == Array(built.node.encodedBytes))
            #expect(written.taggedBytes == built.taggedBytes)
        }
    }
}
