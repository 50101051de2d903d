import Mdoc
import Testing
import WalletCBOR

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
