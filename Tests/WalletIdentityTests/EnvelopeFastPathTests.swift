import Crypto
import Testing
import WalletCBOR
import WalletEncoding
import WalletIdentity
import WalletVerifierTestSupport

/// The envelope read in place (``AppleHPKEEnvelope/read(_:)``) must accept only what the generic
/// decode accepts, with the same fields: on Apple's shape, on unusual but valid shapes (extra keys,
/// other key orders, long heads) and on thousands of mutations of a real envelope.
@Suite struct EnvelopeFastPathTests {
    static func fields(_ envelope: AppleHPKEEnvelope) -> [String] {
        [envelope.algorithm, String(envelope.mode)] + [envelope.pkEm, envelope.pkRHash, envelope.infoHash, envelope.data].map { Hex.encode($0) }
    }

    /// The in-place read agrees with the generic decode: same fields when it reads, and it never reads
    /// what the generic decode rejects. Returns whether it read.
    @discardableResult
    static func agree(_ bytes: [UInt8]) -> Bool {
        let generic = (try? CBORDecoder.decode(bytes)).flatMap { try? AppleHPKEEnvelope(cbor: $0) }
        guard let fast = AppleHPKEEnvelope.read(bytes) else { return false }
        #expect(generic != nil, "read in place what the generic decode rejects: \(Hex.encode(bytes))")
        if let generic { #expect(fields(fast) == fields(generic)) }
        return true
    }

    static func envelope() throws -> [UInt8] {
        try IdentityEnvelopeFixture().envelope(
            plaintext: Array(repeating: 0x41, count: 300), recipient: P256.KeyAgreement.PrivateKey().publicKey, nonce: Array(repeating: 7, count: 32),
            merchantID: "merchant.example", teamID: "TEAM1")
    }

    @Test func theUsualEnvelopeIsReadInPlace() throws {
        #expect(Self.agree(try Self.envelope()))
    }

    @Test func unusualShapesAgree() throws {
        let params: [(CBORNode, CBORNode)] = [
            (.text("mode"), .unsigned(0)), (.text("pkEm"), .bytes([4] + Array(repeating: 1, count: 64))),
            (.text("pkRHash"), .bytes(Array(repeating: 2, count: 32))), (.text("infoHash"), .bytes(Array(repeating: 3, count: 32))),
        ]
        let top: [(CBORNode, CBORNode)] = [
            (.text("algorithm"), .text("APPLE-HPKE-v1")), (.text("params"), try .map(params)), (.text("data"), .bytes([9, 9, 9])),
        ]
        // Reordered keys and an extra key are read in place; a missing field, a wrong type, an integer
        // key, a duplicate key or a trailing byte fall back to the generic decode, which decides.
        #expect(Self.agree(Array(try CBORNode.map(top.reversed()).encodedBytes)))
        #expect(Self.agree(Array(try CBORNode.map(top + [(.text("extra"), .array([.null]))]).encodedBytes)))
        #expect(Self.agree(Array(try CBORNode.map(top.dropLast()).encodedBytes)) == false)
        #expect(Self.agree(Array(try CBORNode.map([top[0], top[1], (.text("data"), .text("text"))]).encodedBytes)) == false)
        #expect(Self.agree(Array(try CBORNode.map(top + [(.unsigned(1), .null)]).encodedBytes)) == false)
        let valid = Array(try CBORNode.map(top).encodedBytes)
        #expect(Self.agree(valid + [0]) == false)
        // A duplicate "data" key: the map header counts one more entry.
        var duplicated = valid
        duplicated[0] += 1
        duplicated += Array(CBORNode.text("data").encodedBytes) + Array(CBORNode.bytes([1]).encodedBytes)
        #expect(Self.agree(duplicated) == false)
    }

    @Test func mutationsAgree() throws {
        let original = try Self.envelope()
        var random = SeededGenerator(seed: 2_026)
        var read = 0
        for _ in 0..<6_000 {
            var bytes = original
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            default:
                // Touch the heads near the start, where the structure is.
                let at = Int.random(in: 0..<min(bytes.count, 160), using: &random)
                bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            }
            if Self.agree(bytes) { read += 1 }
        }
        // Many mutations only change a byte string's content, which both read alike.
        #expect(read > 100)
    }
}
