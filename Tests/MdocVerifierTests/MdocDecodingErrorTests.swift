import Mdoc
import Testing
import WalletCBOR

/// Decoding errors have a typed, extensible code (the CBOR or COSE error's when one stopped decoding)
/// and a message naming the structure.
@Suite struct MdocDecodingErrorTests {
    @Test func aWrongShapeHasItsOwnCode() {
        // [null, null]: SessionTranscript needs three items.
        #expect {
            _ = try SessionTranscript(bytes: [0x82, 0xF6, 0xF6])
        } throws: { error in
            guard let error = error as? MdocDecodingError else { return false }
            return error.code == .malformedStructure && error.message.contains("three items")
                && error.description == "MdocDecodingError.malformedStructure: \(error.message)"
        }
    }

    @Test func aCBORErrorKeepsItsCode() throws {
        let truncated: [UInt8] = [0x83, 0xF6]
        let cborError = try #require(throws: CBORError.self) { try CBORDecoder.decode(truncated) }
        #expect {
            _ = try SessionTranscript(bytes: truncated)
        } throws: { error in
            guard let error = error as? MdocDecodingError else { return false }
            return error.code == MdocDecodingError.Code(cborError.code) && error.code.rawValue == cborError.code.rawValue
                && error.message.hasPrefix("SessionTranscript")
        }
    }
}
